package main

import (
	"fmt"
	"io"
	"math"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"time"
)

// report writes the Markdown report: per jumps setting, a table of every
// policy on every seed, the acceptance of each against nightly, and each
// carrier's error at each horizon with the bootstrap's intervals.
func report(out io.Writer, c config, worlds []world, took time.Duration) error {
	p := func(format string, args ...any) { fmt.Fprintf(out, format, args...) }
	p("## Refresh policies: credits against what the warehouse knew\n\n")
	p("```sh\ngo run -tags duckdb_arrow ./bench/pacing %s\n```\n\n", strings.Join(c.args, " "))
	p("%s, commit %s, %s, %d CPUs; %d nights, %d shipments, %d bootstrap draws; %s.\n\n",
		time.Now().UTC().Format(time.DateOnly), commit(), runtime.Version(), runtime.NumCPU(), c.nights, c.shipments, c.boot,
		took.Round(time.Second))
	for _, jumps := range c.jumps {
		p("### Jumps %s\n\n", onOff(jumps))
		p("| seed | policy | tracking credits | in-transit error < 7 d | days to see an arrival | error 1 / 3 / 7 / 14 d, h | age 1 / 3 / 7 / 14 d, days | ETAs usable 1 / 3 / 7 / 14 d | POSTPOD ETAs usable 1 d | POD ETA revisions seen per shipment | acceptance |\n")
		p("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
		var judged []judgement
		for _, w := range worlds {
			if w.Jumps != jumps {
				continue
			}
			ref := w.Outcomes[0]
			for i, o := range w.Outcomes {
				var cmp comparison
				if i > 0 {
					cmp = compare(o, ref, c.boot)
					judged = append(judged, judgement{w: w, cmp: cmp})
				}
				p("| %d | %s | %s | %s | %s | %s | %s | %s | %d | %.1f | %s |\n", w.Seed, o.Trial.Policy.Name,
					creditsCell(o, ref), inTransitCell(o, ref), arrivalCell(o, ref),
					errorsCell(o), ageCell(o, i == 0, cmp), usableCell(o),
					o.M.Outside.PostPODUsable1, o.M.Outside.Revisions, verdict(i == 0, cmp))
			}
			judged = append(judged, judgement{w: w, cmp: older(ref, c.boot)})
		}
		p("\n")
		for _, w := range worlds {
			if w.Jumps == jumps {
				notes(p, w)
			}
		}
		p("\n")
		for _, w := range worlds {
			if w.Jumps == jumps {
				carrierTable(p, w, judged, c.boot)
			}
		}
		resolvable(p, judged, c.boot)
	}
	p("Policies: ")
	for i, pol := range c.policies {
		if i > 0 {
			p("; ")
		}
		p("**%s**: %s", pol.Name, pol.describe())
	}
	p(".\n")
	return nil
}

// judgement is a policy compared with nightly on one world.
type judgement struct {
	w   world
	cmp comparison
}

func creditsCell(o, ref *outcome) string {
	s := thousands(o.Charged)
	if o != ref {
		s += fmt.Sprintf(" (%.0f %%)", 100*float64(o.Charged)/float64(max(ref.Charged, 1)))
	}
	if o.Calls != o.Charged {
		s += fmt.Sprintf(" [runs counted %s]", thousands(o.Calls))
	}
	return s
}

func inTransitCell(o, ref *outcome) string {
	s := fmt.Sprintf("%.1f h", o.M.InTransit.MAE)
	if o != ref {
		s += fmt.Sprintf(" (%+.1f %%)", 100*(o.M.InTransit.MAE-ref.M.InTransit.MAE)/ref.M.InTransit.MAE)
	}
	return s
}

func arrivalCell(o, ref *outcome) string {
	s := fmt.Sprintf("%.2f", o.M.Arrivals.MeanDays)
	if o != ref {
		s += fmt.Sprintf(" (%+.2f)", o.M.Arrivals.MeanDays-ref.M.Arrivals.MeanDays)
	}
	if unseen := o.M.Arrivals.N - o.M.Arrivals.Seen; unseen > 0 {
		s += fmt.Sprintf(", %d not seen", unseen)
	}
	return s
}

func errorsCell(o *outcome) string {
	hs := horizonStats(o.M.ETAs, nil)
	var parts []string
	for _, h := range horizons {
		parts = append(parts, fmt.Sprintf("%.2f", hs[h].MAE))
	}
	return strings.Join(parts, " / ")
}

// ageCell is nightly's mean age at each horizon, and for the others how
// much older their ETAs were than nightly's, shipment by shipment.
func ageCell(o *outcome, isRef bool, cmp comparison) string {
	var parts []string
	for _, h := range horizons {
		if isRef {
			parts = append(parts, fmt.Sprintf("%.2f", horizonStats(o.M.ETAs, nil)[h].Age))
			continue
		}
		s := fmt.Sprintf("%+.2f", cmp.Horizons[h].ExtraAge)
		if cmp.Horizons[h].ExtraAge > maxExtraAge {
			s = "**" + s + "**"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " / ")
}

func usableCell(o *outcome) string {
	hs := horizonStats(o.M.ETAs, nil)
	var parts []string
	for _, h := range horizons {
		parts = append(parts, fmt.Sprint(hs[h].Usable))
	}
	return strings.Join(parts, " / ")
}

func verdict(isRef bool, cmp comparison) string {
	switch {
	case isRef:
		return "reference"
	case len(cmp.Fails) == 0:
		return "all met"
	}
	return "fails: " + strings.Join(cmp.Fails, ", ")
}

// notes says what else each world's trials did: pushes, deferrals, runs
// not ok, arrivals against the truth.
func notes(p func(string, ...any), w world) {
	var parts []string
	for _, o := range w.Outcomes {
		var s []string
		if o.Pushes > 0 {
			s = append(s, fmt.Sprintf("%s pushes landed", thousands(int64(o.Pushes))))
		}
		if o.Trial.Policy.Paced {
			s = append(s, fmt.Sprintf("%s credits a month, %s asks deferred, %s past the allowance",
				thousands(o.Trial.Credits), thousands(int64(o.Deferred)), thousands(int64(o.Beyond))))
		}
		if o.Partial > 0 {
			s = append(s, fmt.Sprintf("%d nights not ok", o.Partial))
		}
		if o.M.Mismatched > 0 {
			s = append(s, fmt.Sprintf("%d arrivals held not the truth's", o.M.Mismatched))
		}
		if len(s) > 0 {
			parts = append(parts, o.Trial.Policy.Name+": "+strings.Join(s, ", "))
		}
	}
	ref := w.Outcomes[0].M
	p("Seed %d: %s (night, shipment) pairs under 7 days out, %d arrivals in the window",
		w.Seed, thousands(int64(ref.InTransit.Pairs)), ref.Arrivals.N)
	for _, part := range parts {
		p("; %s", part)
	}
	p(".\n")
}

// interval writes a bootstrap's 95 % interval, " [-0.09, +1.70]" at prec
// decimals, or nothing when there were no draws (-boot 0).
func interval(lo, hi float64, prec, boot int) string {
	if boot == 0 {
		return ""
	}
	return fmt.Sprintf(" [%+.*f, %+.*f]", prec, lo, prec, hi)
}

// carrierTable writes each carrier's error at each horizon under
// nightly, and each other policy's difference with its 95 % interval.
func carrierTable(p func(string, ...any), w world, judged []judgement, boot int) {
	var cmps []comparison
	for _, j := range judged {
		if j.w.Seed == w.Seed && j.w.Jumps == w.Jumps {
			cmps = append(cmps, j.cmp)
		}
	}
	if len(cmps) == 0 {
		return
	}
	p("Seed %d, each carrier's error (MAE of the usable ETAs, hours): nightly's, and each policy's difference, its bootstrap 95 %% interval, (its ETAs; of those usable under both, how many differ from nightly's):\n\n", w.Seed)
	p("| carrier | h | nightly |")
	for _, c := range cmps {
		p(" %s |", c.Policy)
	}
	p("\n|---|---:|---:|")
	for range cmps {
		p("---:|")
	}
	p("\n")
	idx := make([]map[string]carrierStat, len(cmps))
	var keys []string
	for i, c := range cmps {
		idx[i] = map[string]carrierStat{}
		for _, cs := range c.Carriers {
			k := fmt.Sprintf("%s\x00%02d", cs.Carrier, cs.Horizon)
			if i == 0 {
				keys = append(keys, k)
			}
			idx[i][k] = cs
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		first := idx[0][k]
		p("| %s | %d | %.2f (%d) |", first.Carrier, first.Horizon, first.MAERef, first.NRef)
		for i := range cmps {
			cs, ok := idx[i][k]
			if !ok {
				p(" – |")
				continue
			}
			d := fmt.Sprintf("%+.2f", cs.Diff)
			if math.Abs(cs.Diff) > maxCarrierDiff {
				d = "**" + d + "**"
			}
			p(" %s%s (%d; %d) |", d, interval(cs.Lo, cs.Hi, 1, boot), cs.N, cs.Differ)
		}
		p("\n")
	}
	p("\n")
}

// resolvable says, over every policy, carrier and horizon, how far off
// ± maxCarrierDiff the differences were and whether the bootstrap could
// tell them from nought.
func resolvable(p func(string, ...any), judged []judgement, boot int) {
	type acc struct {
		cells, over, overZero, widerThan int
		halfWidth                        []float64
		worst                            float64
	}
	byPolicyH := map[string]*acc{}
	var names []string
	for _, j := range judged {
		for _, cs := range j.cmp.Carriers {
			k := fmt.Sprintf("%s at %2d d", j.cmp.Policy, cs.Horizon)
			a := byPolicyH[k]
			if a == nil {
				a = &acc{}
				byPolicyH[k] = a
				names = append(names, k)
			}
			a.cells++
			hw := (cs.Hi - cs.Lo) / 2
			a.halfWidth = append(a.halfWidth, hw)
			if hw > maxCarrierDiff {
				a.widerThan++
			}
			if math.Abs(cs.Diff) > maxCarrierDiff {
				a.over++
				if cs.Lo <= 0 && cs.Hi >= 0 {
					a.overZero++
				}
			}
			a.worst = math.Max(a.worst, math.Abs(cs.Diff))
		}
	}
	if len(names) == 0 {
		return
	}
	p("Every carrier at once, each policy's difference from nightly (MAE of the usable ETAs, hours) and its bootstrap 95 %% interval, per seed:\n\n")
	p("| policy | seed | 1 d | 3 d | 7 d | 14 d |\n|---|---|---:|---:|---:|---:|\n")
	for _, j := range judged {
		p("| %s | %d |", j.cmp.Policy, j.w.Seed)
		for _, h := range horizons {
			for _, cs := range j.cmp.Pooled {
				if cs.Horizon == h {
					p(" %+.2f%s |", cs.Diff, interval(cs.Lo, cs.Hi, 2, boot))
				}
			}
		}
		p("\n")
	}
	p("\n")
	sort.Strings(names)
	p("Each carrier's difference from nightly, over the seeds: cells (carrier × seed) outside ± %.1f h, of them those whose 95 %% interval holds 0, the largest |difference|, and the median half-width of the intervals (cells whose half-width is over %.1f h: the criterion cannot be told there):\n\n", maxCarrierDiff, maxCarrierDiff)
	p("| policy, horizon | cells | outside ± %.1f h | of them, 0 in the interval | largest, h | median half-width, h | half-width over %.1f h |\n|---|---:|---:|---:|---:|---:|---:|\n", maxCarrierDiff, maxCarrierDiff)
	for _, k := range names {
		a := byPolicyH[k]
		sort.Float64s(a.halfWidth)
		if boot == 0 {
			p("| %s | %d | %d | – | %.2f | – | – |\n", k, a.cells, a.over, a.worst)
			continue
		}
		p("| %s | %d | %d | %d | %.2f | %.2f | %d |\n", k, a.cells, a.over, a.overZero, a.worst, quantile(a.halfWidth, 0.5), a.widerThan)
	}
	p("\n")
}

// thousands writes n with a space between thousands: 9 874.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// commit is the module's git commit, with -dirty when its tree is.
func commit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
		c += "-dirty"
	}
	return c
}
