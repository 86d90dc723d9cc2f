package extract

import "strings"

// The Link header is read here rather than by a library: the two Go ones
// (tomnomnom/linkheader, peterhellberg/link) split a header at every
// comma, so a quoted parameter or a URI holding one loses the next page,
// and they take rel as one string, missing "next" in rel="last next"
// (link_test.go holds the cases; docs/design.md, "Hand-written or a
// library").

// linkNext finds the target of rel="next" in Link header values (RFC 8288:
// comma-separated <target>; param=value…, rel holding space-separated
// relation types).
func linkNext(values []string) string {
	for _, v := range values {
		for len(v) > 0 {
			v = strings.TrimLeft(v, " \t,")
			if !strings.HasPrefix(v, "<") {
				break
			}
			end := strings.IndexByte(v, '>')
			if end < 0 {
				break
			}
			target := v[1:end]
			v = v[end+1:]
			params := v
			if i := nextLinkValue(v); i >= 0 {
				params, v = v[:i], v[i:]
			} else {
				v = ""
			}
			for _, p := range strings.Split(params, ";") {
				name, val, ok := strings.Cut(strings.TrimSpace(p), "=")
				if !ok || !strings.EqualFold(strings.TrimSpace(name), "rel") {
					continue
				}
				for _, rel := range strings.Fields(strings.Trim(strings.TrimSpace(val), `"`)) {
					if strings.EqualFold(rel, "next") {
						return target
					}
				}
			}
		}
	}
	return ""
}

// nextLinkValue is the index of the comma that starts the next link value
// of a Link header (outside quotes), or -1.
func nextLinkValue(s string) int {
	quoted := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			quoted = !quoted
		case ',':
			if !quoted {
				return i
			}
		}
	}
	return -1
}
