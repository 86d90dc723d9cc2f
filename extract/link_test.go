package extract

import "testing"

// The next page is found in every form RFC 8288 allows, the forms the Go
// Link-header libraries miss among them (docs/design.md, "Hand-written or
// a library").
//
// RFC 8288, section 3: "Link = #link-value" and "link-value = "<"
// URI-Reference ">" *( OWS ";" OWS link-param )"; section 3.3: "The "rel"
// parameter can, however, contain multiple link relation types"; section
// 2.1.1: relation type names "MUST be compared character by character in
// a case-insensitive fashion". RFC 3986, section 2.2: "sub-delims = "!" /
// "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="": a URI may
// hold a comma.
func TestLinkNextReadsEveryFormOfRFC8288(t *testing.T) {
	for _, c := range []struct {
		name   string
		values []string
		want   string
	}{
		{"one value", []string{`</p2?cursor=x>; rel="next"`}, "/p2?cursor=x"},
		{"a comma in the URI", []string{`</p2?ids=a,b>; rel="next"`}, "/p2?ids=a,b"},
		{"a comma in a quoted parameter", []string{`</p2>; title="a, b"; rel=next, </p9>; rel=last`}, "/p2"},
		{"several relation types", []string{`</p2>; rel="last next"`}, "/p2"},
		{"names in capitals", []string{`</p2>; REL=Next`}, "/p2"},
		{"several header fields", []string{`</first>; rel="first"`, `</p2>; rel=next`}, "/p2"},
		{"no next", []string{`</p1>; rel=prev, </p9>; rel="last"`}, ""},
		{"nexthop is not next", []string{`</p2>; rel="nexthop"`}, ""},
	} {
		if got := linkNext(c.values); got != c.want {
			t.Errorf("%s: linkNext(%q) = %q, want %q", c.name, c.values, got, c.want)
		}
	}
}
