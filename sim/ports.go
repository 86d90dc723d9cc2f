package sim

import (
	"math"
	"sort"
	"time"

	"github.com/etalake/etalake/wire"
)

// Port is a seaport of the world, as a worklist needs it.
type Port struct {
	Locode      string  `json:"locode"`
	Name        string  `json:"name"`
	Country     string  `json:"country"`
	CountryCode string  `json:"country_code"`
	State       string  `json:"state,omitempty"`
	Lat         float64 `json:"lat"`
	Lng         float64 `json:"lng"`
	Timezone    string  `json:"timezone"`
}

// Trade regions, used to weight shipment lanes.
const (
	regFE  = "FE"  // China, Korea, Japan, Taiwan, Hong Kong
	regSEA = "SEA" // South-East Asia
	regISC = "ISC" // Indian subcontinent
	regME  = "ME"  // Middle East
	regMED = "MED" // Mediterranean
	regNEU = "NEU" // North Europe
	regNAW = "NAW" // North America West Coast
	regNAE = "NAE" // North America East and Gulf Coasts
	regCAM = "CAM" // Mexico, Central America, Caribbean
	regSAM = "SAM" // South America
	regAFR = "AFR" // Africa
	regOCE = "OCE" // Oceania
)

// place is a port or an inland location with its terminals.
type place struct {
	Port
	region     string
	size       float64 // relative cargo volume, weights lane choice
	hub        bool    // a transhipment hub
	inland     bool
	facilities []facility
	coordAt    time.Time // when the coordinates were last surveyed
}

// facility is a terminal, rail terminal or depot.
type facility struct {
	name     string
	smdg     string // SMDG terminal code; empty when none
	bic      string // BIC facility suffix (appended to the UN/LOCODE); empty when none
	lat, lng float64
}

// placeSpec is one line of the port tables.
type placeSpec struct {
	locode, name, country, cc, state string
	lat, lng                         float64
	tz, region                       string
	size                             float64
	facs                             []facility
}

// transhipment hubs: ports where the carriers' services connect.
var hubPorts = map[string]bool{
	"SGSIN": true, "MYTPP": true, "MYPKG": true, "LKCMB": true, "AEJEA": true,
	"OMSLL": true, "MAPTM": true, "ESALG": true, "PAMIT": true, "KRPUS": true,
	"HKHKG": true, "GRPIR": true,
}

// seaports are the real ports of the world (UN/LOCODE, name, coordinates of
// the container terminals, IANA zone) with real or plausible terminals.
var seaports = []placeSpec{
	{"CNSHA", "Shanghai", "China", "CN", "Shanghai", 30.626, 122.065, "Asia/Shanghai", regFE, 10, []facility{
		{"Shanghai Yangshan Deep-Water Port Phase IV (SGICT)", "SGICT", "YSG4", 30.620, 122.073},
		{"Shanghai Mingdong Container Terminals", "SMCT", "MDCT", 31.356, 121.648},
		{"Shanghai Shengdong International Container Terminal", "SSICT", "SDCT", 30.633, 122.050}}},
	{"CNNGB", "Ningbo", "China", "CN", "Zhejiang", 29.935, 121.862, "Asia/Shanghai", regFE, 8, []facility{
		{"Ningbo Beilun Second Container Terminal (NBSCT)", "NBSCT", "BL2T", 29.935, 121.862},
		{"Ningbo Meishan Island International Container Terminal", "MSICT", "MSIT", 29.771, 121.967}}},
	{"CNYTN", "Yantian", "China", "CN", "Guangdong", 22.569, 114.274, "Asia/Shanghai", regFE, 6, []facility{
		{"Yantian International Container Terminals (YICT)", "YICT", "YICT", 22.569, 114.274}}},
	{"CNSHK", "Shekou", "China", "CN", "Guangdong", 22.475, 113.897, "Asia/Shanghai", regFE, 4, []facility{
		{"Shekou Container Terminals (SCT)", "SCT", "SCTM", 22.475, 113.897},
		{"Chiwan Container Terminal", "CCT", "CWCT", 22.466, 113.878}}},
	{"CNTAO", "Qingdao", "China", "CN", "Shandong", 36.009, 120.216, "Asia/Shanghai", regFE, 5, []facility{
		{"Qingdao Qianwan Container Terminal (QQCT)", "QQCT", "QQCT", 36.009, 120.216},
		{"Qingdao New Qianwan Container Terminal", "QQCTN", "QNCT", 35.985, 120.183}}},
	{"CNXMN", "Xiamen", "China", "CN", "Fujian", 24.493, 118.036, "Asia/Shanghai", regFE, 3, []facility{
		{"Xiamen Songyu Container Terminal", "XSCT", "SYCT", 24.432, 118.052}}},
	{"CNTXG", "Tianjin Xingang", "China", "CN", "Tianjin", 38.998, 117.788, "Asia/Shanghai", regFE, 3, []facility{
		{"Tianjin Port Pacific International Container Terminal", "TPCT", "PICT", 39.006, 117.807}}},
	{"HKHKG", "Hong Kong", "Hong Kong, China", "HK", "", 22.338, 114.121, "Asia/Hong_Kong", regFE, 4, []facility{
		{"Hongkong International Terminals (HIT)", "HIT", "HITT", 22.338, 114.121},
		{"Modern Terminals Kwai Chung", "MTL", "MTLK", 22.345, 114.116}}},
	{"TWKHH", "Kaohsiung", "Taiwan, Province of China", "TW", "Kaohsiung", 22.566, 120.318, "Asia/Taipei", regFE, 3, []facility{
		{"Kaohsiung Evergreen Terminal (Pier 115)", "KET", "EG15", 22.566, 120.318},
		{"Kao Ming Container Terminal", "KMCT", "KMCT", 22.526, 120.327}}},
	{"KRPUS", "Busan", "Korea, Republic of", "KR", "Busan", 35.075, 128.826, "Asia/Seoul", regFE, 5, []facility{
		{"Pusan Newport International Terminal (PNIT)", "PNIT", "PNIT", 35.073, 128.801},
		{"Hyundai Pusan Newport Terminal (HPNT)", "HPNT", "HPNT", 35.068, 128.817},
		{"Busan New Container Terminal (BNCT)", "BNCT", "BNCT", 35.058, 128.794}}},
	{"JPTYO", "Tokyo", "Japan", "JP", "Tokyo", 35.613, 139.789, "Asia/Tokyo", regFE, 2, []facility{
		{"Ohi Container Terminal", "OHI", "OHIT", 35.600, 139.767}}},
	{"JPYOK", "Yokohama", "Japan", "JP", "Kanagawa", 35.423, 139.671, "Asia/Tokyo", regFE, 2, []facility{
		{"Minami-Honmoku Container Terminal", "MC3", "MHMK", 35.411, 139.684}}},
	{"JPUKB", "Kobe", "Japan", "JP", "Hyogo", 34.666, 135.210, "Asia/Tokyo", regFE, 1, []facility{
		{"Port Island Container Terminal PC-18", "PC18", "", 34.661, 135.216}}},
	{"VNSGN", "Ho Chi Minh City (Thành phố Hồ Chí Minh)", "Viet Nam", "VN", "Hồ Chí Minh", 10.757, 106.788, "Asia/Ho_Chi_Minh", regSEA, 3, []facility{
		{"Tân Cảng – Cát Lái Terminal", "TCCL", "CALT", 10.757, 106.788},
		{"Cai Mep International Terminal (CMIT)", "CMIT", "CMIT", 10.525, 107.021}}},
	{"VNHPH", "Haiphong", "Viet Nam", "VN", "Hải Phòng", 20.838, 106.772, "Asia/Ho_Chi_Minh", regSEA, 2, []facility{
		{"Haiphong International Container Terminal (HICT)", "HICT", "HICT", 20.811, 106.868}}},
	{"THLCH", "Laem Chabang", "Thailand", "TH", "Chon Buri", 13.083, 100.885, "Asia/Bangkok", regSEA, 3, []facility{
		{"Hutchison Ports Thailand Terminal D", "HPTD", "HPTD", 13.066, 100.891},
		{"LCB1 Container Terminal B5", "LCB1", "LCB5", 13.089, 100.881}}},
	{"MYPKG", "Port Klang", "Malaysia", "MY", "Selangor", 2.982, 101.306, "Asia/Kuala_Lumpur", regSEA, 3, []facility{
		{"Westports Malaysia", "WPT", "WPTK", 2.982, 101.306},
		{"Northport Malaysia", "NPT", "NPTK", 3.006, 101.370}}},
	{"MYTPP", "Tanjung Pelepas", "Malaysia", "MY", "Johor", 1.363, 103.548, "Asia/Kuala_Lumpur", regSEA, 2, []facility{
		{"Port of Tanjung Pelepas", "PTP", "PTPT", 1.363, 103.548}}},
	{"SGSIN", "Singapore", "Singapore", "SG", "", 1.264, 103.759, "Asia/Singapore", regSEA, 5, []facility{
		{"PSA Pasir Panjang Terminal", "PPT", "PPTS", 1.273, 103.762},
		{"PSA Tuas Port", "TUAS", "TUAS", 1.237, 103.622},
		{"PSA Keppel Terminal", "KEP", "KEPT", 1.266, 103.832}}},
	{"IDJKT", "Jakarta", "Indonesia", "ID", "DKI Jakarta", -6.100, 106.883, "Asia/Jakarta", regSEA, 2, []facility{
		{"Jakarta International Container Terminal (JICT)", "JICT", "JICT", -6.104, 106.896}}},
	{"LKCMB", "Colombo", "Sri Lanka", "LK", "Western Province", 6.954, 79.843, "Asia/Colombo", regISC, 2, []facility{
		{"South Asia Gateway Terminals (SAGT)", "SAGT", "SAGT", 6.951, 79.845},
		{"Colombo International Container Terminals (CICT)", "CICT", "CICT", 6.935, 79.832}}},
	{"INNSA", "Nhava Sheva (Jawaharlal Nehru Port)", "India", "IN", "Maharashtra", 18.950, 72.951, "Asia/Kolkata", regISC, 3, []facility{
		{"Gateway Terminals India (GTI)", "GTI", "GTIT", 18.948, 72.947},
		{"Nhava Sheva International Container Terminal (NSICT)", "NSICT", "NSIC", 18.957, 72.955},
		{"Bharat Mumbai Container Terminals (BMCT)", "BMCT", "BMCT", 18.930, 72.960}}},
	{"INMUN", "Mundra", "India", "IN", "Gujarat", 22.745, 69.702, "Asia/Kolkata", regISC, 2, []facility{
		{"Adani Mundra Container Terminal", "AMCT", "AMCT", 22.740, 69.705}}},
	{"AEJEA", "Jebel Ali", "United Arab Emirates", "AE", "Dubai", 25.011, 55.061, "Asia/Dubai", regME, 4, []facility{
		{"DP World Jebel Ali Terminal 1", "JAT1", "JAT1", 25.011, 55.061},
		{"DP World Jebel Ali Terminal 3", "JAT3", "JAT3", 24.990, 55.030}}},
	{"OMSLL", "Salalah", "Oman", "OM", "Dhofar", 16.941, 54.006, "Asia/Muscat", regME, 1, []facility{
		{"Salalah Port Container Terminal", "SPS", "SPSC", 16.941, 54.006}}},
	{"EGPSD", "Port Said", "Egypt", "EG", "Port Said", 31.231, 32.357, "Africa/Cairo", regMED, 1, []facility{
		{"Suez Canal Container Terminal (SCCT)", "SCCT", "SCCT", 31.223, 32.365}}},
	{"TRMER", "Mersin", "Türkiye", "TR", "Mersin", 36.791, 34.630, "Europe/Istanbul", regMED, 2, []facility{
		{"Mersin International Port (MIP)", "MIP", "MIPT", 36.791, 34.630}}},
	{"GRPIR", "Piraeus", "Greece", "GR", "Attica", 37.950, 23.575, "Europe/Athens", regMED, 3, []facility{
		{"Piraeus Container Terminal Pier II", "PCT2", "PCT2", 37.950, 23.575},
		{"Piraeus Container Terminal Pier III", "PCT3", "PCT3", 37.955, 23.555}}},
	{"ITGOA", "Genoa", "Italy", "IT", "Liguria", 44.405, 8.905, "Europe/Rome", regMED, 3, []facility{
		{"PSA Genova Pra'", "PSAGP", "PSGP", 44.423, 8.788},
		{"Terminal San Giorgio", "TSG", "", 44.405, 8.905}}},
	{"ITGIT", "Gioia Tauro", "Italy", "IT", "Calabria", 38.445, 15.898, "Europe/Rome", regMED, 1, []facility{
		{"Medcenter Container Terminal", "MCT", "MCTG", 38.445, 15.898}}},
	{"ESVLC", "Valencia", "Spain", "ES", "Comunitat Valenciana", 39.441, -0.318, "Europe/Madrid", regMED, 3, []facility{
		{"CSP Iberian Valencia Terminal", "CSPV", "CSPV", 39.441, -0.318},
		{"MSC Terminal Valencia", "MSCTV", "MSCV", 39.452, -0.312}}},
	{"ESBCN", "Barcelona", "Spain", "ES", "Catalunya", 41.335, 2.150, "Europe/Madrid", regMED, 2, []facility{
		{"Hutchison Ports BEST", "BEST", "BEST", 41.318, 2.147}}},
	{"ESALG", "Algeciras", "Spain", "ES", "Andalucía", 36.132, -5.437, "Europe/Madrid", regMED, 2, []facility{
		{"APM Terminals Algeciras", "APMA", "APMA", 36.145, -5.431},
		{"Terminal de Contenedores de Algeciras – TTIA", "TTIA", "TTIA", 36.114, -5.433}}},
	{"MAPTM", "Tanger Med", "Morocco", "MA", "Tanger-Tétouan-Al Hoceïma", 35.885, -5.502, "Africa/Casablanca", regMED, 2, []facility{
		{"Eurogate Tanger (Tanger Med 1)", "EGT", "EGTM", 35.889, -5.510},
		{"APM Terminals MedPort Tangier (Tanger Med 2)", "APMT2", "TM2A", 35.878, -5.487}}},
	{"FRLEH", "Le Havre", "France", "FR", "Normandie", 49.465, 0.153, "Europe/Paris", regNEU, 3, []facility{
		{"Terminal Porte Océane", "TPO", "TPOC", 49.465, 0.153},
		{"Terminal de France", "TDF", "TDFR", 49.467, 0.174}}},
	{"FRFOS", "Fos-sur-Mer", "France", "FR", "Provence-Alpes-Côte d'Azur", 43.406, 4.873, "Europe/Paris", regMED, 1, []facility{
		{"Seayard Fos 2XL", "FOS2X", "", 43.406, 4.873}}},
	{"GBFXT", "Felixstowe", "United Kingdom", "GB", "Suffolk", 51.955, 1.305, "Europe/London", regNEU, 4, []facility{
		{"Port of Felixstowe Trinity Terminal", "FXTT", "TRIN", 51.955, 1.305}}},
	{"GBLGP", "London Gateway", "United Kingdom", "GB", "Essex", 51.506, 0.473, "Europe/London", regNEU, 2, []facility{
		{"DP World London Gateway", "DPWLG", "DPLG", 51.506, 0.473}}},
	{"BEANR", "Antwerp", "Belgium", "BE", "Antwerpen", 51.278, 4.342, "Europe/Brussels", regNEU, 6, []facility{
		{"MSC PSA European Terminal (MPET)", "MPET", "MPET", 51.286, 4.270},
		{"DP World Antwerp Gateway", "ANTGW", "ANGW", 51.295, 4.254},
		{"PSA Noordzee Terminal", "PSANZ", "NZTR", 51.326, 4.300}}},
	{"NLRTM", "Rotterdam", "Netherlands", "NL", "Zuid-Holland", 51.952, 4.044, "Europe/Amsterdam", regNEU, 8, []facility{
		{"ECT Delta Terminal", "ECTDE", "ECTD", 51.952, 4.044},
		{"Rotterdam World Gateway", "RWG", "RWGT", 51.965, 4.011},
		{"APM Terminals Maasvlakte II", "APMII", "APM2", 51.970, 4.000}}},
	{"DEHAM", "Hamburg", "Germany", "DE", "Hamburg", 53.530, 9.929, "Europe/Berlin", regNEU, 6, []facility{
		{"HHLA Container Terminal Burchardkai", "CTB", "CTBK", 53.537, 9.917},
		{"HHLA Container Terminal Altenwerder", "CTA", "CTAW", 53.506, 9.926},
		{"Eurogate Container Terminal Hamburg", "EGH", "EGHH", 53.528, 9.893}}},
	{"DEBRV", "Bremerhaven", "Germany", "DE", "Bremen", 53.580, 8.540, "Europe/Berlin", regNEU, 4, []facility{
		{"North Sea Terminal Bremerhaven", "NTB", "NTBH", 53.600, 8.530},
		{"Eurogate Container Terminal Bremerhaven", "EGB", "EGCB", 53.575, 8.545}}},
	{"PLGDN", "Gdańsk", "Poland", "PL", "Pomorskie", 54.399, 18.675, "Europe/Warsaw", regNEU, 2, []facility{
		{"Baltic Hub", "BHUB", "BHUB", 54.399, 18.675}}},
	{"USLAX", "Los Angeles", "United States", "US", "California", 33.738, -118.262, "America/Los_Angeles", regNAW, 8, []facility{
		{"APM Terminals Pier 400", "APMLA", "P400", 33.725, -118.252},
		{"Fenix Marine Services", "FMS", "FNXM", 33.748, -118.258},
		{"TraPac Los Angeles", "TRPLA", "TRPL", 33.767, -118.275}}},
	{"USLGB", "Long Beach", "United States", "US", "California", 33.754, -118.214, "America/Los_Angeles", regNAW, 6, []facility{
		{"Long Beach Container Terminal (LBCT)", "LBCT", "LBCT", 33.756, -118.229},
		{"Total Terminals International (TTI)", "TTI", "TTIP", 33.749, -118.237}}},
	{"USOAK", "Oakland", "United States", "US", "California", 37.797, -122.318, "America/Los_Angeles", regNAW, 3, []facility{
		{"Oakland International Container Terminal (OICT)", "OICT", "OICT", 37.797, -122.318}}},
	{"USSEA", "Seattle", "United States", "US", "Washington", 47.573, -122.352, "America/Los_Angeles", regNAW, 2, []facility{
		{"Seattle Terminal 18", "T18", "T18S", 47.573, -122.352}}},
	{"CAVAN", "Vancouver", "Canada", "CA", "British Columbia", 49.290, -123.080, "America/Vancouver", regNAW, 3, []facility{
		{"Centerm", "CENT", "CENT", 49.290, -123.080},
		{"Deltaport", "DELT", "DLTP", 49.015, -123.157}}},
	{"USNYC", "New York", "United States", "US", "New York", 40.683, -74.148, "America/New_York", regNAE, 6, []facility{
		{"Port Newark Container Terminal", "PNCT", "PNCT", 40.683, -74.148},
		{"Maher Terminals", "MAHER", "MAHR", 40.676, -74.157}}},
	{"USORF", "Norfolk", "United States", "US", "Virginia", 36.917, -76.329, "America/New_York", regNAE, 2, []facility{
		{"Norfolk International Terminals", "NIT", "NITV", 36.917, -76.329}}},
	{"USCHS", "Charleston", "United States", "US", "South Carolina", 32.835, -79.904, "America/New_York", regNAE, 2, []facility{
		{"Wando Welch Terminal", "WWT", "WAND", 32.835, -79.904}}},
	{"USSAV", "Savannah", "United States", "US", "Georgia", 32.124, -81.145, "America/New_York", regNAE, 4, []facility{
		{"Garden City Terminal", "GCT", "GCTS", 32.124, -81.145}}},
	{"USHOU", "Houston", "United States", "US", "Texas", 29.611, -95.015, "America/Chicago", regNAE, 3, []facility{
		{"Barbours Cut Container Terminal", "BCT", "BCTH", 29.686, -95.004},
		{"Bayport Container Terminal", "BPT", "BAYP", 29.611, -95.015}}},
	{"MXZLO", "Manzanillo", "Mexico", "MX", "Colima", 19.067, -104.293, "America/Mexico_City", regCAM, 2, []facility{
		{"Contecon Manzanillo", "CMSA", "CONT", 19.080, -104.297},
		{"SSA México", "SSAM", "SSAM", 19.065, -104.288}}},
	{"PAMIT", "Manzanillo", "Panama", "PA", "Colón", 9.364, -79.880, "America/Panama", regCAM, 1, []facility{
		{"Manzanillo International Terminal", "MIT", "MITP", 9.364, -79.880}}},
	{"PABLB", "Balboa", "Panama", "PA", "Panamá", 8.951, -79.567, "America/Panama", regCAM, 1, []facility{
		{"PPC Balboa", "PPCB", "PPCB", 8.951, -79.567}}},
	{"COCTG", "Cartagena", "Colombia", "CO", "Bolívar", 10.395, -75.525, "America/Bogota", regCAM, 1, []facility{
		{"Sociedad Portuaria Regional de Cartagena – Manga", "SPRC", "SPRC", 10.410, -75.532},
		{"Contecar", "CTCR", "CTCR", 10.380, -75.518}}},
	{"BRSSZ", "Santos", "Brazil", "BR", "São Paulo", -23.930, -46.310, "America/Sao_Paulo", regSAM, 3, []facility{
		{"Santos Brasil Tecon Santos", "TECON", "TECS", -23.930, -46.310},
		{"Brasil Terminal Portuário (BTP)", "BTP", "BTPS", -23.920, -46.360}}},
	{"ARBUE", "Buenos Aires", "Argentina", "AR", "Ciudad Autónoma de Buenos Aires", -34.575, -58.380, "America/Argentina/Buenos_Aires", regSAM, 1, []facility{
		{"Terminal 4 Puerto Nuevo", "T4BA", "T4BA", -34.575, -58.380}}},
	{"CLSAI", "San Antonio", "Chile", "CL", "Valparaíso", -33.590, -71.614, "America/Santiago", regSAM, 1, []facility{
		{"San Antonio Terminal Internacional (STI)", "STI", "STIC", -33.590, -71.614}}},
	{"PECLL", "Callao", "Peru", "PE", "Callao", -12.048, -77.145, "America/Lima", regSAM, 1, []facility{
		{"DP World Callao", "DPWC", "DPWC", -12.048, -77.145}}},
	{"ZADUR", "Durban", "South Africa", "ZA", "KwaZulu-Natal", -29.871, 31.026, "Africa/Johannesburg", regAFR, 2, []facility{
		{"Durban Container Terminal Pier 2", "DCT2", "DCT2", -29.871, 31.026}}},
	{"ZACPT", "Cape Town", "South Africa", "ZA", "Western Cape", -33.908, 18.440, "Africa/Johannesburg", regAFR, 1, []facility{
		{"Cape Town Container Terminal", "CTCT", "CTCT", -33.908, 18.440}}},
	{"KEMBA", "Mombasa", "Kenya", "KE", "Mombasa", -4.045, 39.646, "Africa/Nairobi", regAFR, 1, []facility{
		{"Kilindini Container Terminal", "KCT", "", -4.045, 39.646}}},
	{"NGAPP", "Apapa", "Nigeria", "NG", "Lagos", 6.438, 3.368, "Africa/Lagos", regAFR, 1, []facility{
		{"APM Terminals Apapa", "APMAP", "APMA", 6.438, 3.368}}},
	{"AUSYD", "Sydney", "Australia", "AU", "New South Wales", -33.970, 151.222, "Australia/Sydney", regOCE, 2, []facility{
		{"Patrick Terminals Port Botany", "PTB", "PATB", -33.970, 151.222},
		{"DP World Sydney", "DPWS", "DPWS", -33.967, 151.213}}},
	{"AUMEL", "Melbourne", "Australia", "AU", "Victoria", -37.830, 144.910, "Australia/Melbourne", regOCE, 2, []facility{
		{"Victoria International Container Terminal (VICT)", "VICT", "VICT", -37.838, 144.902},
		{"Patrick Terminals East Swanson Dock", "PESD", "PESD", -37.815, 144.915}}},
	{"NZAKL", "Auckland", "New Zealand", "NZ", "Auckland", -36.843, 174.786, "Pacific/Auckland", regOCE, 1, []facility{
		{"Fergusson Container Terminal", "FCT", "FERG", -36.843, 174.786}}},
}

// inlandPlaces are the origins and destinations of carrier haulage.
var inlandPlaces = []placeSpec{
	{"DEDUI", "Duisburg", "Germany", "DE", "Nordrhein-Westfalen", 51.434, 6.762, "Europe/Berlin", regNEU, 0, []facility{
		{"DUSS Terminal Duisburg-Ruhrort Hafen", "", "DUSS", 51.450, 6.740}}},
	{"DEMUC", "Munich", "Germany", "DE", "Bayern", 48.137, 11.576, "Europe/Berlin", regNEU, 0, []facility{
		{"DUSS Terminal München-Riem", "", "DUSR", 48.137, 11.690}}},
	{"CZPRG", "Prague", "Czechia", "CZ", "Praha", 50.076, 14.438, "Europe/Prague", regNEU, 0, []facility{
		{"Metrans Praha Uhříněves", "", "MTRU", 50.030, 14.600}}},
	{"ATVIE", "Vienna", "Austria", "AT", "Wien", 48.208, 16.373, "Europe/Vienna", regNEU, 0, []facility{
		{"WienCont Container Terminal", "", "WCON", 48.180, 16.440}}},
	{"HUBUD", "Budapest", "Hungary", "HU", "Budapest", 47.498, 19.040, "Europe/Budapest", regNEU, 0, nil},
	{"CHBSL", "Basel", "Switzerland", "CH", "Basel-Stadt", 47.560, 7.590, "Europe/Zurich", regNEU, 0, []facility{
		{"Swissterminal Basel-Kleinhüningen", "", "SWTB", 47.585, 7.590}}},
	{"USCHI", "Chicago", "United States", "US", "Illinois", 41.878, -87.630, "America/Chicago", regNAE, 0, []facility{
		{"BNSF Logistics Park Chicago", "", "BNSF", 41.470, -88.100},
		{"Union Pacific Global IV", "", "UPG4", 41.420, -88.090}}},
	{"USDAL", "Dallas", "United States", "US", "Texas", 32.777, -96.797, "America/Chicago", regNAE, 0, []facility{
		{"Union Pacific Dallas Intermodal Terminal", "", "UPDI", 32.600, -96.780}}},
	{"USATL", "Atlanta", "United States", "US", "Georgia", 33.749, -84.388, "America/New_York", regNAE, 0, nil},
	{"USMEM", "Memphis", "United States", "US", "Tennessee", 35.150, -90.049, "America/Chicago", regNAE, 0, []facility{
		{"BNSF Memphis Intermodal Facility", "", "BNSM", 35.010, -89.970}}},
	{"MXMEX", "Mexico City", "Mexico", "MX", "Ciudad de México", 19.433, -99.133, "America/Mexico_City", regCAM, 0, []facility{
		{"Terminal Intermodal Pantaco", "", "PANT", 19.480, -99.170}}},
	{"INTKD", "ICD Tughlakabad", "India", "IN", "Delhi", 28.503, 77.270, "Asia/Kolkata", regISC, 0, []facility{
		{"Inland Container Depot Tughlakabad", "", "ICDT", 28.503, 77.270}}},
	{"CNHGH", "Hangzhou", "China", "CN", "Zhejiang", 30.274, 120.155, "Asia/Shanghai", regFE, 0, nil},
	{"CNWUH", "Wuhan", "China", "CN", "Hubei", 30.593, 114.305, "Asia/Shanghai", regFE, 0, []facility{
		{"Wuhan Yangluo Container Port", "", "YLCP", 30.650, 114.520}}},
	{"CNCKG", "Chongqing", "China", "CN", "Chongqing", 29.563, 106.551, "Asia/Shanghai", regFE, 0, []facility{
		{"Chongqing Guoyuan Port", "", "GYPC", 29.610, 106.700}}},
	{"CNDGG", "Dongguan", "China", "CN", "Guangdong", 23.021, 113.752, "Asia/Shanghai", regFE, 0, nil},
}

// inlandLink is carrier haulage between a seaport and an inland place.
type inlandLink struct {
	port, inland string
	mode         string  // TRUCK or RAIL
	days         float64 // door-to-terminal transit
}

var inlandLinks = []inlandLink{
	{"CNSHA", "CNHGH", "TRUCK", 1}, {"CNSHA", "CNWUH", "RAIL", 3}, {"CNSHA", "CNCKG", "RAIL", 5},
	{"CNNGB", "CNHGH", "TRUCK", 1}, {"CNYTN", "CNDGG", "TRUCK", 1}, {"CNSHK", "CNDGG", "TRUCK", 1},
	{"INNSA", "INTKD", "RAIL", 3}, {"INMUN", "INTKD", "RAIL", 2},
	{"NLRTM", "DEDUI", "RAIL", 2}, {"BEANR", "DEDUI", "TRUCK", 1}, {"DEHAM", "CZPRG", "RAIL", 3},
	{"DEHAM", "HUBUD", "RAIL", 4}, {"DEHAM", "ATVIE", "RAIL", 3}, {"DEBRV", "DEMUC", "RAIL", 2},
	{"DEBRV", "CZPRG", "RAIL", 3}, {"GRPIR", "HUBUD", "RAIL", 4}, {"ITGOA", "CHBSL", "RAIL", 2},
	{"USLAX", "USCHI", "RAIL", 5}, {"USLAX", "USDAL", "RAIL", 4}, {"USLGB", "USCHI", "RAIL", 5},
	{"USLGB", "USMEM", "RAIL", 5}, {"USSEA", "USCHI", "RAIL", 6}, {"CAVAN", "USCHI", "RAIL", 6},
	{"USNYC", "USCHI", "RAIL", 3}, {"USSAV", "USATL", "TRUCK", 1}, {"USSAV", "USMEM", "RAIL", 3},
	{"USCHS", "USATL", "TRUCK", 1}, {"USHOU", "USDAL", "TRUCK", 1}, {"MXZLO", "MXMEX", "RAIL", 2},
}

// buildPlaces turns the tables into places sorted by UN/LOCODE; seaports
// first, then inland places.
func buildPlaces(seed int64) []place {
	var out []place
	add := func(specs []placeSpec, inland bool) {
		start := len(out)
		for _, s := range specs {
			p := place{
				Port: Port{Locode: s.locode, Name: s.name, Country: s.country, CountryCode: s.cc,
					State: s.state, Lat: s.lat, Lng: s.lng, Timezone: s.tz},
				region: s.region, size: s.size, hub: hubPorts[s.locode], inland: inland,
				facilities: s.facs,
			}
			// Coordinates were surveyed at some day of 2024 or 2025.
			day := intn(hash(seed, tagFacility, strID(s.locode)), 700)
			p.coordAt = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, day)
			out = append(out, p)
		}
		sort.Slice(out[start:], func(i, j int) bool { return out[start+i].Locode < out[start+j].Locode })
	}
	add(seaports, false)
	add(inlandPlaces, true)
	return out
}

// location renders a place as a fresh wire Location.
func (p *place) location() *wire.Location {
	lat, lng, at := p.Lat, p.Lng, p.coordAt
	loc := &wire.Location{
		Name: p.Name, Country: p.Country, CountryCode: p.CountryCode, Locode: p.Locode,
		Coordinates: &wire.Coordinates{Lat: &lat, Lng: &lng, UpdatedAt: &at},
		Timezone:    p.Timezone,
	}
	if p.State != "" {
		s := p.State
		loc.State = &s
	}
	return loc
}

// facilityWire renders terminal i of the place as a fresh wire Facility; nil
// when the place has no terminal.
func (p *place) facilityWire(i int) *wire.Facility {
	if i < 0 || i >= len(p.facilities) {
		return nil
	}
	f := p.facilities[i]
	locode := p.Locode
	lat, lng, at := f.lat, f.lng, p.coordAt
	out := &wire.Facility{
		Name: f.name, CountryCode: p.CountryCode, Locode: &locode,
		Coordinates: &wire.Coordinates{Lat: &lat, Lng: &lng, UpdatedAt: &at},
	}
	if f.bic != "" {
		b := p.Locode + f.bic
		out.BICCode = &b
	}
	if f.smdg != "" {
		s := f.smdg
		out.SMDGCode = &s
	}
	return out
}

// greatCircleNM is the great-circle distance between two places in nautical
// miles, a rough proxy for how far apart they are by sea.
func greatCircleNM(a, b *place) float64 {
	const rad = math.Pi / 180
	la1, la2 := a.Lat*rad, b.Lat*rad
	dla, dlo := la2-la1, (b.Lng-a.Lng)*rad
	h := math.Sin(dla/2)*math.Sin(dla/2) + math.Cos(la1)*math.Cos(la2)*math.Sin(dlo/2)*math.Sin(dlo/2)
	return 2 * 3440.065 * math.Asin(math.Min(1, math.Sqrt(h)))
}
