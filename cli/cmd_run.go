package cli

import (
	"github.com/urfave/cli/v2"
)

func runCommand() *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "the nightly job: refresh the tracked shipments and the selected schedules for a logical date",
		Description: runDescription + `

Shipments given with --shipments join the tracked set. Each night the refresh policy asks those
due (--refresh adaptive, the default): one never observed at once; one whose ETA is at most 5
days away or past every night, 5 to 10 days every 2 nights, 10 to 20 every 3, further weekly
(--refresh-tiers, --refresh-every); once on the last night before its ETA comes within 14, 7, 3
and 1 days (--refresh-horizons); one discharged with its final destination to come every 3
nights; one arrived at its final place (POSTPOD actual, or POD actual without a POSTPOD) no more,
unless --grace. --refresh nightly asks every shipment not finished every night, with 72h of grace,
as etalake did before. With the balance reported, the tracking credits are paced over the period
(--pace): what the night's allowance does not cover is deferred, listed, and asked within twice
its interval. The dry run says how many shipments are due and why; data_freshness shows each
one's next due night and reason. A refresh policy that makes no sense is refused (exit 2):
--refresh-tiers 1 to 366 days, each tier further out than the one before, --refresh-every 1 to
60 nights, never more often further out, --refresh-horizons 1 to 60 days, --pace-reserve 0 to
90% or a count.

Schedule it once a day:
   15 2 * * *  ETALAKE_API_KEY_FILE=/etc/etalake/key etalake run --warehouse /srv/etalake --ports @/etc/etalake/ports.txt`,
		Flags: append(append(runFlags(), graceFlag("keep refreshing a shipment this long after it arrived at its final place")),
			refreshFlags()...),
		OnUsageError: usageError,
		Action: func(c *cli.Context) error {
			return runJob(c, "run", true, nil)
		},
	}
}
