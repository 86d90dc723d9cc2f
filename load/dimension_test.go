package load_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/etalake/etalake/schema"
)

// Rows of the dimension tables (schema.Dimension): each attribute is the
// one the latest observation that gave it gave, and its Kept column names
// that observation unless it is the row's latest.

// gave is an attribute's value and the observation that gave it (in the
// table, the value of its Kept column unless that is the row's latest).
type gave struct {
	value   any
	at, rid string
}

// observation is a row of a dimension table observed at `at` by response
// rid, giving the attributes of attrs and leaving the others out.
func observation(tbl *schema.Table, key row, at, rid string, attrs row) row {
	r := row{tbl.First: at, tbl.Last: at, "response_id": rid, tbl.Partition: at[:10]}
	for _, m := range []row{key, attrs} {
		for k, v := range m {
			r[k] = v
		}
	}
	return r
}

// place is an observation of a location.
func place(locode, at, rid string, attrs row) row {
	return observation(schema.Locations, row{"locode": locode}, at, rid, attrs)
}

// holds is the row a dimension table holds for key: seen first at first,
// last at last by response rid, and each attribute as attrs says (those
// absent from attrs unknown).
func holds(tbl *schema.Table, key row, first, last, rid string, attrs map[string]gave) row {
	r := row{tbl.First: first, tbl.Last: last, "response_id": rid, tbl.Partition: first[:10]}
	for k, v := range key {
		r[k] = v
	}
	for a, g := range attrs {
		if _, ok := tbl.Column(schema.KeptColumn(a)); !ok {
			panic(fmt.Sprintf("%s has no attribute %s", tbl.Name, a))
		}
		r[a] = g.value
		if g.at != last || g.rid != rid {
			r[schema.KeptColumn(a)] = g
		}
	}
	return r
}

// observedOnce is the row a dimension table holds after r alone: every
// attribute r gives (not null, not empty) is r's, none kept.
func observedOnce(tbl *schema.Table, r row) row {
	out := row{}
	for k, v := range r {
		out[k] = v
	}
	for _, a := range dimensionAttributes(tbl) {
		if out[a] == "" {
			out[a] = nil
		}
	}
	return out
}

// dimensionAttributes lists the attributes of a dimension table: the
// columns with a Kept column.
func dimensionAttributes(tbl *schema.Table) []string {
	var out []string
	for _, c := range tbl.Columns {
		if c.Computed {
			out = append(out, strings.TrimSuffix(c.Name, schema.KeptColumn("")))
		}
	}
	return out
}

// Observations of one place, used by several cases: a rich answer, two
// later ones at the same instant (one of them with an empty string for a
// time zone it does not know), and a poor one later still.
func fourObservations(locode string) []row {
	return []row{
		place(locode, "2024-01-01T08:00:00Z", "r1", row{"name": "N1", "state": "S1", "country": "C1", "country_code": "CC",
			"lat": 51.5, "lng": 4.25, "timezone": "Z1"}),
		place(locode, "2024-01-02T08:00:00Z", "r2", row{"name": "N2", "state": "S2", "timezone": ""}),
		place(locode, "2024-01-03T08:00:00Z", "r3", row{"name": "N3"}),
		place(locode, "2024-01-02T08:00:00Z", "r9", row{"state": "S4", "timezone": "Z4", "lng": 4.5}),
	}
}

// fourObserved is what the locations table holds after fourObservations,
// whatever their order.
func fourObserved(locode string) row {
	t1, t2, t3 := "2024-01-01T08:00:00Z", "2024-01-02T08:00:00Z", "2024-01-03T08:00:00Z"
	return holds(schema.Locations, row{"locode": locode}, t1, t3, "r3", map[string]gave{
		"name":         {"N3", t3, "r3"},
		"state":        {"S4", t2, "r9"}, // t2 twice: the greater response_id
		"country":      {"C1", t1, "r1"},
		"country_code": {"CC", t1, "r1"},
		"lat":          {51.5, t1, "r1"},
		"lng":          {4.5, t2, "r9"},
		"timezone":     {"Z4", t2, "r9"}, // r2's empty string is no value
	})
}

// permutations lists every order of n items, as index lists.
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for i := 0; i <= len(p); i++ {
			q := append(append(append([]int{}, p[:i]...), n-1), p[i:]...)
			out = append(out, q)
		}
	}
	return out
}

var dimensionCases = []mergeCase{
	{"dimension: a richer observation then a poorer one keeps the rich attributes", func(t *testing.T, st store) {
		mem := checkedMem(t)
		t1, t3, t4 := "2024-01-01T08:00:00Z", "2024-01-03T08:00:00Z", "2024-01-04T08:00:00Z"
		rich := place("NLRTM", t1, "r1", row{"name": "Rotterdam", "state": "Zuid-Holland", "country": "Netherlands",
			"country_code": "NL", "lat": 51.95, "lng": 4.14, "timezone": "Europe/Amsterdam"})
		// A later answer names the port only, with an empty state.
		poor := place("NLRTM", t3, "r3", row{"name": "ROTTERDAM", "state": ""})
		want := holds(schema.Locations, row{"locode": "NLRTM"}, t1, t3, "r3", map[string]gave{
			"name": {"ROTTERDAM", t3, "r3"}, "state": {"Zuid-Holland", t1, "r1"}, "country": {"Netherlands", t1, "r1"},
			"country_code": {"NL", t1, "r1"}, "lat": {51.95, t1, "r1"}, "lng": {4.14, t1, "r1"},
			"timezone": {"Europe/Amsterdam", t1, "r1"},
		})
		for _, order := range [][]row{{rich, poor}, {poor, rich}} {
			w := freshWarehouse(t)
			for _, r := range order {
				if n := load1(t, w, mem, schema.Locations, r).Rows["locations"]; n != 1 {
					t.Errorf("%s: %d rows changed, want 1", r["response_id"], n)
				}
				st.rows(t, w, schema.Locations)
			}
			equal(t, fmt.Sprint("first ", order[0]["response_id"]), st.rows(t, w, schema.Locations), lines(schema.Locations, want))
		}
		w := freshWarehouse(t)
		load1(t, w, mem, schema.Locations, poor, rich)
		equal(t, "one batch", st.rows(t, w, schema.Locations), lines(schema.Locations, want))

		// Named again later, with nothing new: only last_seen_at and
		// response_id move (the attributes kept stay kept from r1).
		again := place("NLRTM", t4, "r4", row{"name": "ROTTERDAM"})
		if n := load1(t, w, mem, schema.Locations, again).Rows["locations"]; n != 1 {
			t.Errorf("named again: %d rows changed, want 1", n)
		}
		want["last_seen_at"], want["response_id"] = t4, "r4"
		equal(t, "named again", st.rows(t, w, schema.Locations), lines(schema.Locations, want))
		// And then with everything again: nothing is kept any more.
		full := place("NLRTM", "2024-01-05T08:00:00Z", "r5", row{"name": "ROTTERDAM", "state": "Zuid-Holland", "country": "Netherlands",
			"country_code": "NL", "lat": 51.95, "lng": 4.14, "timezone": "Europe/Amsterdam"})
		load1(t, w, mem, schema.Locations, full)
		equal(t, "given again", st.rows(t, w, schema.Locations), lines(schema.Locations, mergedSeen(full, t1)))
	}},
	{"dimension: a later value wins, an older one loaded after does not", func(t *testing.T, st store) {
		mem := checkedMem(t)
		t1, t2 := "2024-01-01T08:00:00Z", "2024-01-02T08:00:00Z"
		old := place("DEHAM", t1, "r7", row{"name": "Hamburg", "timezone": "CET"})
		later := place("DEHAM", t2, "r2", row{"timezone": "Europe/Berlin"})
		want := holds(schema.Locations, row{"locode": "DEHAM"}, t1, t2, "r2", map[string]gave{
			"name": {"Hamburg", t1, "r7"}, "timezone": {"Europe/Berlin", t2, "r2"},
		})
		for _, order := range [][]row{{old, later}, {later, old}} {
			w := freshWarehouse(t)
			for _, r := range order {
				load1(t, w, mem, schema.Locations, r)
				st.rows(t, w, schema.Locations)
			}
			equal(t, fmt.Sprint("first ", order[0]["response_id"]), st.rows(t, w, schema.Locations), lines(schema.Locations, want))
		}
		// Two answers at the same instant: of what both give, the greater
		// response_id's value.
		a := place("BEANR", t2, "r5", row{"state": "Antwerpen"})
		b := place("BEANR", t2, "r4", row{"state": "VAN", "name": "Antwerp"})
		tie := holds(schema.Locations, row{"locode": "BEANR"}, t2, t2, "r5", map[string]gave{
			"state": {"Antwerpen", t2, "r5"}, "name": {"Antwerp", t2, "r4"},
		})
		for _, order := range [][]row{{a, b}, {b, a}} {
			w := freshWarehouse(t)
			for _, r := range order {
				load1(t, w, mem, schema.Locations, r)
			}
			equal(t, fmt.Sprint("tie, first ", order[0]["response_id"]), st.rows(t, w, schema.Locations), lines(schema.Locations, tie))
		}
	}},
	{"dimension: every order of four observations, in one batch or several, gives one table", func(t *testing.T, st store) {
		mem := checkedMem(t)
		// Each order is a place of its own, so that one warehouse holds them
		// all: every place must end the same.
		perms := permutations(4)
		var want []row
		ordered := make([][]row, len(perms))
		for i, p := range perms {
			locode := fmt.Sprintf("P%02d", i)
			obs := fourObservations(locode)
			for _, j := range p {
				ordered[i] = append(ordered[i], obs[j])
			}
			want = append(want, fourObserved(locode))
		}
		wantLines := lines(schema.Locations, want...)
		for _, way := range []struct {
			name    string
			batches func() [][]row
		}{
			{"a load per observation", func() [][]row {
				var out [][]row
				for _, o := range ordered {
					for _, r := range o {
						out = append(out, []row{r})
					}
				}
				return out
			}},
			{"one batch", func() [][]row {
				var all []row
				for _, o := range ordered {
					all = append(all, o...)
				}
				return [][]row{all}
			}},
			{"two batches of two", func() [][]row {
				var a, b []row
				for _, o := range ordered {
					a, b = append(a, o[:2]...), append(b, o[2:]...)
				}
				return [][]row{a, b}
			}},
		} {
			w := freshWarehouse(t)
			for i, b := range way.batches() {
				load1(t, w, mem, schema.Locations, b...)
				if i%8 == 0 {
					st.rows(t, w, schema.Locations) // sync between loads too
				}
			}
			equal(t, way.name, st.rows(t, w, schema.Locations), wantLines)
		}
	}},
	{"dimension: the same observations again change nothing and count nothing", func(t *testing.T, st store) {
		mem := checkedMem(t)
		w := freshWarehouse(t)
		obs := append(fourObservations("NLRTM"), fourObservations("DEHAM")...)
		load1(t, w, mem, schema.Locations, obs...)
		once := st.rows(t, w, schema.Locations)
		equal(t, "once", once, lines(schema.Locations, fourObserved("NLRTM"), fourObserved("DEHAM")))
		files := fileTimes(t, w, schema.Locations)
		if n := load1(t, w, mem, schema.Locations, obs...).Rows["locations"]; n != 0 {
			t.Errorf("the same batch again changed %d rows", n)
		}
		for _, r := range obs {
			if n := load1(t, w, mem, schema.Locations, r).Rows["locations"]; n != 0 {
				t.Errorf("%s %s again changed %d rows", r["locode"], r["response_id"], n)
			}
		}
		equal(t, "again", st.rows(t, w, schema.Locations), once)
		if !maps(files, fileTimes(t, w, schema.Locations)) {
			t.Errorf("loading again rewrote partition files")
		}
	}},
	{"dimension: an empty string is no value", func(t *testing.T, st store) {
		mem := checkedMem(t)
		w := freshWarehouse(t)
		r := place("NLRTM", "2024-01-01T08:00:00Z", "r1", row{"name": "", "state": "", "timezone": "Europe/Amsterdam"})
		load1(t, w, mem, schema.Locations, r)
		equal(t, "rows", st.rows(t, w, schema.Locations), lines(schema.Locations, observedOnce(schema.Locations, r)))
		if n := queryInt(t, w.DB(), "SELECT count(*) FROM locations WHERE name IS NULL AND state IS NULL AND name_kept IS NULL"); n != 1 {
			t.Errorf("an empty name or state is stored, or kept")
		}
	}},
	{"dimension: facilities and vessels keep what a poorer observation leaves out", func(t *testing.T, st store) {
		mem := checkedMem(t)
		t1, t2 := "2024-01-01T08:00:00Z", "2024-01-02T08:00:00Z"
		for tbl, key := range map[*schema.Table]row{schema.Facilities: {"facility_key": "NLRTM:ECT"}, schema.Vessels: {"imo": 9321483}} {
			w := freshWarehouse(t)
			values, kept := row{}, map[string]gave{}
			for i, a := range dimensionAttributes(tbl) {
				c, _ := tbl.Column(a)
				v := map[schema.Type]any{schema.Varchar: "v-" + a, schema.Double: 1.5 + float64(i), schema.BigInt: i}[c.Type]
				values[a], kept[a] = v, gave{v, t1, "r1"}
			}
			load1(t, w, mem, tbl, observation(tbl, key, t1, "r1", values))
			load1(t, w, mem, tbl, observation(tbl, key, t2, "r2", nil))
			equal(t, tbl.Name, st.rows(t, w, tbl), lines(tbl, holds(tbl, key, t1, t2, "r2", kept)))
		}
	}},
}
