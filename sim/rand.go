package sim

import "math"

// Every random number of the world is a pure function of the seed and stable
// identifiers, so that answers do not depend on the order of requests.

// Domain tags keep the hash streams of different draws apart.
const (
	tagCarrier uint64 = iota + 1
	tagService
	tagVessel
	tagIMO
	tagCall
	tagDelay
	tagStay
	tagEST
	tagESTVessel
	tagPredictive
	tagShipment
	tagNumber
	tagContainer
	tagEvent
	tagDuplicate
	tagFacility
	tagInland
	// Jumps (jumps.go); new tags go last, so that the streams above, and a
	// world without jumps, stay what they were.
	tagRoll
	tagOmit
	tagSwap
	// Realistic ETA errors (etaerrors.go).
	tagLaneBias
	tagPortBias
	tagDrift
	tagTails
	tagPredictiveGap
)

// mix is the splitmix64 finaliser.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// hash combines a seed, a domain tag and identifiers into 64 random bits.
func hash(seed int64, tag uint64, ids ...int64) uint64 {
	h := mix(uint64(seed) ^ mix(tag))
	for _, id := range ids {
		h = mix(h ^ uint64(id))
	}
	return h
}

// strID turns a short string into a stable identifier (FNV-1a).
func strID(s string) int64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return int64(h)
}

// unit maps 64 random bits to [0, 1).
func unit(h uint64) float64 { return float64(h>>11) / (1 << 53) }

// uniform draws from [lo, hi).
func uniform(h uint64, lo, hi float64) float64 { return lo + (hi-lo)*unit(h) }

// intn draws from [0, n).
func intn(h uint64, n int) int { return int(unit(h) * float64(n)) }

// normal is a standard normal draw (Box–Muller on two uniforms derived from h).
func normal(h uint64) float64 {
	u1 := unit(mix(h ^ 0x5851f42d4c957f2d))
	u2 := unit(mix(h ^ 0x14057b7ef767814f))
	if u1 < 1e-300 {
		u1 = 1e-300
	}
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}

// exponential draws from Exp(1).
func exponential(h uint64) float64 {
	u := unit(h)
	return -math.Log(1 - u)
}

// pick chooses an index with probability proportional to its weight.
func pick(h uint64, weights []float64) int {
	total := 0.0
	for _, w := range weights {
		total += w
	}
	x := unit(h) * total
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(weights) - 1
}
