package cli

import (
	"encoding/csv"
	"encoding/json"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/sim"
)

// simWorldCommand prints the simulated world: its shipments, ports,
// lanes, vessels or truth.
func simWorldCommand() *cli.Command {
	return &cli.Command{
		Name:  "world",
		Usage: "print the simulated world: shipments to track, ports, lanes, vessels or ground truth",
		Description: "Prints one list as CSV with a header, ready to feed the extractor:\n" +
			"   etalake sim world --seed 7 > shipments.csv                 (shipment_number,shipment_type,sealine)\n" +
			"   etalake sim world --seed 7 --list ports                    (locode,name,country_code,timezone,lat,lng)\n" +
			"   etalake sim world --seed 7 --list lanes                    (pol,pod)\n" +
			"   etalake sim world --seed 7 --list vessels                  (imo,name,carrier,service)\n" +
			"   etalake sim world --seed 7 --list truth                    (JSON: the parameters analytics must recover)",
		Flags: append(append(worldFlags(),
			&cli.StringFlag{Category: catOutput, Name: "list", Value: "shipments", Usage: "shipments, ports, lanes, vessels or truth"},
		), logFlags()...),
		OnUsageError: usageError,
		Action:       printWorld,
	}
}

// printWorld prints one list of the simulated world: shipments, ports,
// lanes or vessels as CSV, or its truth as JSON.
func printWorld(c *cli.Context) error {
	wcfg, err := worldConfig(c)
	if err != nil {
		return err
	}
	list := c.String("list")
	switch list {
	case "shipments", "ports", "lanes", "vessels", "truth":
	default:
		return configError("--list %q: want shipments, ports, lanes, vessels or truth", list)
	}
	world := sim.NewWorld(wcfg)
	if list == "truth" {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		return enc.Encode(world.Truth())
	}
	w := csv.NewWriter(c.App.Writer)
	switch list {
	case "shipments":
		_ = w.Write([]string{"shipment_number", "shipment_type", "sealine"})
		for _, s := range world.Shipments() {
			_ = w.Write([]string{s.Number, string(s.Type), s.Sealine})
		}
	case "ports":
		_ = w.Write([]string{"locode", "name", "country_code", "timezone", "lat", "lng"})
		for _, p := range world.Ports() {
			_ = w.Write([]string{p.Locode, p.Name, p.CountryCode, p.Timezone, ftoa(p.Lat), ftoa(p.Lng)})
		}
	case "lanes":
		_ = w.Write([]string{"pol", "pod"})
		for _, l := range world.Lanes() {
			_ = w.Write([]string{l.POL, l.POD})
		}
	case "vessels":
		_ = w.Write([]string{"imo", "name", "carrier", "service"})
		for _, v := range world.Vessels() {
			_ = w.Write([]string{strconv.Itoa(v.IMO), v.Name, v.Carrier, v.Service})
		}
	}
	w.Flush()
	return w.Error()
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
