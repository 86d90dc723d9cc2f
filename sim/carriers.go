package sim

// carrier is a shipping line with its behaviour parameters.
//
// The parameters are fixed per carrier (they do not depend on the seed), so
// that a demo always shows the same league table: on-time shares spread over
// the published 2025 range (about 48–77 % of arrivals within ±24 h of
// schedule), ETA bias from slightly pessimistic to strongly optimistic, and
// coverage per query kind mirroring service.md §1 (every carrier port to
// port, about 60 % by vessel, about 30 % by port).
//
// Jump rates (jumps.go), also fixed per carrier:
//
//   - rollRate, per loading (the POL, and the hub of a transhipment): the
//     share of boxes the carrier rolls to the next sailing late enough to
//     change what tracking shows. The published rollover indices count
//     every box that leaves on another vessel than first planned, early
//     re-bookings and swaps included, and were measured in the 2021
//     congestion: 39 % of boxes on average in April 2021, MSC 28 %, Maersk
//     34 %, COSCO 44 %, Evergreen 47 %, Hapag-Lloyd 51 %, ONE 53 %, CMA CGM
//     56 % (project44); 22 % at the major transhipment ports in October
//     2019, before it (Ocean Insights). The simulator takes about a tenth
//     of the 2021 figure, ranked as those indices rank the carriers (3–5.5 %
//     a loading; OOCL as its parent COSCO, 5–6 % for the other carriers
//     without a published figure).
//   - omitRate, per omissible call (a range port with the vessel's next
//     call within 4 days; never a transhipment hub): the share of calls the
//     vessel skips. No per-carrier figure is published; 1–3 %, higher for
//     the less punctual carriers, since omitting a call is how a late loop
//     recovers its schedule.
//   - swapRate, per voyage (a rotation of a service): the share of voyages
//     sailed by a substitute ship instead of the planned one. A plausible
//     2–4 %, the most for ZIM, which charters most of its fleet.
type carrier struct {
	scac, name string
	share      float64 // market share weight for shipments

	onTime       float64 // share of arrivals within ±24 h of PLN
	lateMeanDays float64 // mean delay of a freshly drawn late arrival
	biasH        float64 // ETA bias at full scale, hours (actual − eta)
	spreadH      float64 // ETA spread at full scale, hours
	revMinute    int     // minute of the UTC day at which ETAs are revised

	rollRate, omitRate, swapRate float64 // jumps: per loading, per omissible call, per voyage

	byPort, byVessel bool

	voyageStyle int
	naming      naming
	flags       []weighted // vessel flags
	owners      []string   // container owner prefixes (carrier's own)
	prepolIsPol bool       // reports prepol = pol when there is no inland origin

	// derived at NewWorld
	pDraw          float64 // per-call on-time draw probability (calibrated)
	realisedOnTime float64
	realisedLate   float64 // mean delay of late calls, days
	realisedCalls  int
	meanDelayH     float64 // mean ACT − PLN of the window's calls, hours
}

type weighted struct {
	code string
	w    float64
}

// Voyage number styles.
const (
	voyYearWeek = iota // "602W": last digit of the year, ISO week
	voyYYWW            // "2602W"
	voyPrefix          // "FL602W": two service letters, last digit of year, week
	voyCMA             // "0FAL5W1MA"
	voySeq             // "045W": per-vessel voyage counter
	voySeq4            // "0045W"
	voyDirFirst        // "N045": direction first
)

// naming is how a carrier names its ships.
type naming struct {
	prefix, suffix string
	words          []string // nil: a number
}

var lessors = []string{"TGHU", "TCLU", "TEMU", "SEGU", "CAIU", "BMOU", "FCIU", "GESU", "TRHU"}

// carriers, in a stable order (by SCAC).
var carrierTable = []carrier{
	{scac: "CMDU", name: "CMA CGM", share: 13, onTime: 0.60, lateMeanDays: 5.0, biasH: 12, spreadH: 20, revMinute: 1*60 + 5, rollRate: 0.055, omitRate: 0.015, swapRate: 0.03,
		byPort: true, byVessel: true, voyageStyle: voyCMA, naming: naming{prefix: "CMA CGM ", words: cmaWords},
		flags: []weighted{{"MT", 4}, {"FR", 2}, {"SG", 2}, {"LR", 2}}, owners: []string{"CMAU", "CGMU", "ECMU"}},
	{scac: "COSU", name: "COSCO Shipping Lines", share: 11, onTime: 0.64, lateMeanDays: 4.8, biasH: 10, spreadH: 16, revMinute: 17*60 + 30, rollRate: 0.045, omitRate: 0.015, swapRate: 0.03,
		byVessel: true, voyageStyle: voySeq, naming: naming{prefix: "COSCO SHIPPING ", words: starWords},
		flags: []weighted{{"HK", 5}, {"CN", 3}, {"PA", 2}}, owners: []string{"CBHU", "CSNU", "CCLU"}, prepolIsPol: true},
	{scac: "EGLV", name: "Evergreen Marine", share: 5.5, onTime: 0.58, lateMeanDays: 5.2, biasH: 16, spreadH: 20, revMinute: 18*60 + 45, rollRate: 0.045, omitRate: 0.02, swapRate: 0.03,
		byVessel: true, voyageStyle: voySeq4, naming: naming{prefix: "EVER ", words: everWords},
		flags: []weighted{{"SG", 3}, {"PA", 3}, {"TW", 2}, {"GB", 2}}, owners: []string{"EGHU", "EMCU", "EISU"}},
	{scac: "HDMU", name: "HMM", share: 3, onTime: 0.52, lateMeanDays: 5.4, biasH: 22, spreadH: 24, revMinute: 16*60 + 50, rollRate: 0.05, omitRate: 0.025, swapRate: 0.03,
		voyageStyle: voySeq, naming: naming{prefix: "HMM ", words: hmmWords},
		flags: []weighted{{"KR", 5}, {"PA", 3}, {"MH", 2}}, owners: []string{"HDMU", "KOCU"}},
	{scac: "HLCU", name: "Hapag-Lloyd", share: 7.5, onTime: 0.77, lateMeanDays: 4.2, biasH: 3, spreadH: 10, revMinute: 4*60 + 20, rollRate: 0.05, omitRate: 0.01, swapRate: 0.02,
		byPort: true, byVessel: true, voyageStyle: voyYYWW, naming: naming{suffix: " EXPRESS", words: cityWords},
		flags: []weighted{{"DE", 4}, {"LR", 3}, {"MT", 3}}, owners: []string{"HLXU", "HLBU", "UACU"}, prepolIsPol: true},
	{scac: "MAEU", name: "Maersk", share: 14, onTime: 0.74, lateMeanDays: 4.4, biasH: 4, spreadH: 9, revMinute: 2*60 + 15, rollRate: 0.035, omitRate: 0.01, swapRate: 0.02,
		byPort: true, byVessel: true, voyageStyle: voyYearWeek, naming: naming{prefix: "MAERSK ", words: cityWords},
		flags: []weighted{{"DK", 5}, {"SG", 3}, {"HK", 2}}, owners: []string{"MSKU", "MRKU", "MAEU"}},
	{scac: "MSCU", name: "MSC Mediterranean Shipping Company", share: 20, onTime: 0.68, lateMeanDays: 4.6, biasH: 14, spreadH: 18, revMinute: 6*60 + 40, rollRate: 0.03, omitRate: 0.015, swapRate: 0.03,
		byVessel: true, voyageStyle: voyPrefix, naming: naming{prefix: "MSC ", words: mscWords},
		flags: []weighted{{"PA", 4}, {"LR", 3}, {"PT", 2}, {"MT", 1}}, owners: []string{"MSCU", "MEDU", "MSDU", "MSMU"}},
	{scac: "ONEY", name: "Ocean Network Express", share: 6.5, onTime: 0.55, lateMeanDays: 5.0, biasH: 18, spreadH: 22, revMinute: 21*60 + 10, rollRate: 0.055, omitRate: 0.02, swapRate: 0.03,
		byPort: true, byVessel: true, voyageStyle: voySeq, naming: naming{prefix: "ONE ", words: virtueWords},
		flags: []weighted{{"JP", 3}, {"SG", 3}, {"PA", 2}, {"MH", 2}}, owners: []string{"ONEU", "NYKU", "KKFU"}},
	{scac: "OOLU", name: "OOCL", share: 5, onTime: 0.62, lateMeanDays: 4.8, biasH: 8, spreadH: 14, revMinute: 22*60 + 55, rollRate: 0.045, omitRate: 0.015, swapRate: 0.03,
		voyageStyle: voySeq, naming: naming{prefix: "OOCL ", words: cityWords},
		flags: []weighted{{"HK", 8}, {"PA", 2}}, owners: []string{"OOLU", "OOCU"}, prepolIsPol: true},
	{scac: "PCIU", name: "Pacific International Lines", share: 1.5, onTime: 0.48, lateMeanDays: 6.0, biasH: 30, spreadH: 28, revMinute: 23*60 + 40, rollRate: 0.06, omitRate: 0.03, swapRate: 0.03,
		voyageStyle: voySeq, naming: naming{prefix: "KOTA ", words: malayWords},
		flags: []weighted{{"SG", 9}, {"LR", 1}}, owners: []string{"PCIU", "PILU"}},
	{scac: "WHLC", name: "Wan Hai Lines", share: 2, onTime: 0.54, lateMeanDays: 4.5, biasH: -6, spreadH: 12, revMinute: 20*60 + 5, rollRate: 0.05, omitRate: 0.02, swapRate: 0.03,
		voyageStyle: voyDirFirst, naming: naming{prefix: "WAN HAI "},
		flags: []weighted{{"SG", 5}, {"TW", 3}, {"PA", 2}}, owners: []string{"WHSU", "WHLU"}},
	{scac: "YMLU", name: "Yang Ming Marine Transport", share: 3, onTime: 0.51, lateMeanDays: 5.6, biasH: 20, spreadH: 26, revMinute: 19*60 + 25, rollRate: 0.05, omitRate: 0.025, swapRate: 0.03,
		voyageStyle: voySeq4, naming: naming{prefix: "YM ", words: ymWords},
		flags: []weighted{{"LR", 4}, {"SG", 3}, {"TW", 3}}, owners: []string{"YMLU", "YMMU"}},
	{scac: "ZIMU", name: "ZIM Integrated Shipping Services", share: 2.5, onTime: 0.49, lateMeanDays: 5.8, biasH: 28, spreadH: 30, revMinute: 5*60 + 35, rollRate: 0.06, omitRate: 0.025, swapRate: 0.04,
		byVessel: true, voyageStyle: voyYYWW, naming: naming{prefix: "ZIM ", words: zimWords},
		flags: []weighted{{"LR", 5}, {"MT", 3}, {"IL", 2}}, owners: []string{"ZIMU", "ZCSU", "ZMOU"}},
}

// Vessel name words. The lists are long enough for the largest fleets; a
// fleet that needs more names gets "II" variants.
var (
	cityWords = []string{"AARHUS", "ALGECIRAS", "AMSTERDAM", "ANTWERP", "ATHENS", "BALTIMORE", "BARCELONA",
		"BERLIN", "BILBAO", "BOSTON", "BREMEN", "BRISBANE", "BUSAN", "CAIRO", "CALLAO", "CHICAGO", "COLOMBO",
		"COPENHAGEN", "DALIAN", "DENVER", "DUBAI", "DUBLIN", "DURBAN", "ESSEN", "FRANKFURT", "GENOA", "GENEVA",
		"GDANSK", "HALIFAX", "HAMBURG", "HELSINKI", "HOUSTON", "ISTANBUL", "JAKARTA", "KARACHI", "KOBE",
		"KOLKATA", "LIMA", "LISBON", "LONDON", "LYON", "MADRID", "MANILA", "MARSEILLE", "MELBOURNE", "MIAMI",
		"MILAN", "MONTREAL", "MUMBAI", "MUNICH", "NAGOYA", "NAPLES", "NINGBO", "OAKLAND", "OSAKA", "OSLO",
		"PARIS", "PERTH", "PORTO", "PRAGUE", "QINGDAO", "RIGA", "ROME", "SANTOS", "SEATTLE", "SEOUL",
		"SEVILLA", "STOCKHOLM", "SYDNEY", "TALLINN", "TOKYO", "TORONTO", "TUNIS", "VALENCIA", "VANCOUVER",
		"VENICE", "VIENNA", "WARSAW", "XIAMEN", "ZURICH"}
	mscWords = []string{"ALINA", "AMELIA", "ANNA", "ARINA", "AURORA", "BEATRICE", "BETTINA", "CAMILLE", "CARMEN",
		"CHIARA", "CLARA", "DANIELA", "DIANA", "ELOANE", "ELENA", "EMANUELA", "ERICA", "FEBE", "FLAVIA",
		"GAIA", "GINEVRA", "GIULIA", "GÜLSÜN", "HAMBURG", "IRINA", "ISABELLA", "JADE", "KATIE", "LORETO",
		"LUCIANA", "MAYA", "MELATILDE", "MIA", "MICHELA", "MINA", "NELLA", "NICOLA", "OLIVIA", "OSCAR",
		"PALOMA", "RAYA", "REGINA", "ROSA", "SAMAR", "SARA", "SIXIN", "SOFIA", "TESSA", "TÜRKİYE", "VALENTINA",
		"VERONIQUE", "VITA", "ZOE", "ZLATA", "ANTONIA", "FRANCESCA", "ISTANBUL", "LENI", "MARTA", "NOA"}
	cmaWords = []string{"ANTOINE DE SAINT EXUPERY", "ARGENTINA", "BENJAMIN FRANKLIN", "BOUGAINVILLE", "CHAMPS ELYSEES",
		"CHRISTOPHE COLOMB", "CONCORDE", "GEORG FORSTER", "GREENLAND", "JACQUES SAADE", "JEAN MERMOZ",
		"JULES VERNE", "KERGUELEN", "LOUVRE", "MARCO POLO", "MONTMARTRE", "PALAIS ROYAL", "PEGASUS",
		"RIVOLI", "SORBONNE", "TAGE", "THAMES", "TROCADERO", "VASCO DE GAMA", "ZHENG HE", "AMERIGO VESPUCCI",
		"ALEXANDER VON HUMBOLDT", "BIGORRE", "CORTE REAL", "DANUBE", "ELBE", "GANGES", "HYDRA", "LAPEROUSE",
		"MAGELLAN", "NILE", "ORFEO", "SEINE", "TENERE", "VOLGA", "YANGTZE", "ZAMBEZI", "LOIRE", "RHONE"}
	starWords = []string{"ARIES", "AQUARIUS", "CAPRICORN", "CANCER", "GEMINI", "LEO", "LIBRA", "PISCES",
		"SAGITTARIUS", "SCORPIO", "TAURUS", "VIRGO", "UNIVERSE", "GALAXY", "NEBULA", "PLANET", "SOLAR",
		"ORION", "SIRIUS", "VEGA", "ALTAIR", "POLARIS", "RIGEL", "DENEB", "CASTOR", "POLLUX", "ANTARES",
		"ARCTURUS", "CAPELLA", "PROCYON", "BETELGEUSE", "ALDEBARAN", "SPICA", "REGULUS", "CANOPUS",
		"ACHERNAR", "MIRA", "ATLAS", "HERCULES", "PHOENIX", "LYRA", "CYGNUS", "DRACO", "PEGASUS", "HYDRA",
		"CARINA", "CORONA", "ANDROMEDA", "CASSIOPEIA", "PERSEUS", "CEPHEUS", "AURIGA", "BOOTES", "CENTAURUS",
		"LUPUS", "ARA", "COLUMBA", "DORADO", "PAVO", "TUCANA"}
	virtueWords = []string{"COMMITMENT", "COMPETENCE", "CONTRIBUTION", "CRANE", "EAGLE", "FALCON", "HAWK",
		"HARMONY", "INNOVATION", "INFINITY", "INTEGRITY", "MANCHESTER", "MILLAU", "MINATO", "OLYMPUS",
		"ORPHEUS", "PARAMOUNT", "PRESENCE", "PROSPERITY", "RELIABILITY", "STORK", "SWAN", "TRIUMPH",
		"TRUTH", "WISDOM", "APUS", "AQUILA", "COLUMBA", "CYGNUS", "GRUS", "HAMMERSMITH", "HANNOVER",
		"HOUSTON", "IBIS", "KINGSTON", "MAGNOLIA", "MONACO", "OWL", "PELICAN", "ROSE"}
	everWords = []string{"ACE", "ALOT", "APEX", "ARM", "ATOP", "BLINK", "BRAVE", "CHANT", "CONCERT", "CREATE",
		"DAINTY", "DELUXE", "DIADEM", "EAGLE", "FAME", "FIT", "GENTLE", "GIVEN", "GLOBE", "GOLDEN", "GOVERN",
		"GRACE", "LAMBENT", "LASTING", "LAUREL", "LEADING", "LEGACY", "LIBERAL", "LIVELY", "LOTUS",
		"MAX", "MUSE", "OUTWIT", "PEACE", "PRIMA", "SIGMA", "SMART", "SUPERB", "TOP", "TRIUMPH", "UBERTY",
		"ULYSSES", "UNICORN", "UNIFIC", "UNISON", "URSULA", "USEFUL", "UTILE", "VALUE", "VERSE"}
	ymWords = []string{"WELLNESS", "WARRANTY", "WELLBEING", "WINNER", "WISDOM", "WITNESS", "WONDERLAND",
		"WORLD", "TRIUMPH", "TRUTH", "TRAVEL", "TOTALITY", "TRANSCENDENCE", "MOVEMENT", "MANDATE",
		"MASCULINITY", "MATURITY", "MODESTY", "MUTUALITY", "UNANIMITY", "UNICORN", "UBERTY", "UNIFORMITY",
		"UPSURGENCE", "UTMOST", "ESSENCE", "ETERNITY", "EVOLUTION", "EXCELLENCE", "ENLIGHTENMENT"}
	hmmWords = []string{"ALGECIRAS", "COPENHAGEN", "DUBLIN", "GDANSK", "HAMBURG", "HELSINKI", "LE HAVRE",
		"OSLO", "ROTTERDAM", "SOUTHAMPTON", "STOCKHOLM", "ST PETERSBURG", "BLESSING", "DREAM", "GARAM",
		"HANBADA", "HAPPINESS", "HOPE", "NURI", "PROMISE", "RAON", "SARANG", "TONGHAE", "MIR", "GAON",
		"HANUL", "NOORI", "BADA", "DAON", "YEONGIL", "JEJU", "POHANG", "ULSAN", "INCHEON", "MOKPO"}
	zimWords = []string{"KINGSTON", "SAMMY OFER", "MOUNT EVEREST", "MOUNT FUJI", "MOUNT KILIMANJARO",
		"MOUNT BLANC", "MOUNT OLYMPUS", "MOUNT DENALI", "MOUNT RAINIER", "MOUNT ARARAT", "AMMONITE",
		"AQUAMARINE", "CORAL", "DIAMOND", "EMERALD", "GARNET", "JADE", "OPAL", "PEARL", "RUBY", "SAPPHIRE",
		"TOPAZ", "TURQUOISE", "ZIRCON", "ANTWERP", "CHICAGO", "NEW YORK", "PIRAEUS", "SAVANNAH", "TARRAGONA",
		"VIRGINIA", "XIAMEN", "CHARLESTON", "HOUSTON", "HAIFA", "ASHDOD", "EILAT", "TEL AVIV"}
	malayWords = []string{"PEMIMPIN", "PERMATA", "PUSAKA", "RAKYAT", "SEJARAH", "SELATAN", "SETIA",
		"TENANG", "UNGGUL", "CEMPAKA", "CAHAYA", "GABUNG", "GAYA", "HALUS", "HARUM", "INDAH", "JASA", "JATI",
		"KAPAS", "LAGU", "LAHIR", "LAMBANG", "LESTARI", "MACHAN", "MANIS", "MEGAH", "MUTIARA", "NAGA",
		"NASRAT", "PELANGI", "PELAGI", "RATU", "SAHABAT", "SALAM", "SATRIA", "SURIA", "TAHTA", "WAJAR",
		"WIRAWAN", "ARIF", "BAHAGIA", "BINTANG", "DAHLIA"}
)

// carrierIndex finds a carrier by SCAC.
func carrierIndex(cs []carrier, scac string) int {
	for i := range cs {
		if cs[i].scac == scac {
			return i
		}
	}
	return -1
}
