package cli

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"
)

// envValueError finds the ETALAKE_* variable of the command's flags whose
// value does not read as its flag's type, as cli reads it when it applies
// the flags (first variable first, in the flags' order), and says which
// variable and flag it is and what is wanted, as a range error does
// ("ETALAKE_MAX_CREDITS (--max-credits) \"abc\": want a whole number").
// cli's own message quotes strconv's. It checks the variables themselves
// rather than reading cli's message, which is text, not a type; nil when
// every variable reads.
func envValueError(flags []cli.Flag) error {
	for _, f := range flags {
		vars, parse := envParser(f)
		for _, name := range vars {
			val, ok := os.LookupEnv(name)
			if !ok {
				continue
			}
			if want := parse(val); val != "" && want != "" {
				return fmt.Errorf("%s (--%s) %q: want %s", name, f.Names()[0], val, want)
			}
			break // cli reads the first variable set
		}
	}
	return nil
}

// envParser is the variables of a flag whose value cli parses and a check
// that returns what is wanted when a value does not parse ("" when it
// does), as cli parses that type; none for a string flag.
func envParser(f cli.Flag) ([]string, func(string) string) {
	check := func(ok bool, want string) string {
		if ok {
			return ""
		}
		return want
	}
	switch f := f.(type) {
	case *cli.IntFlag:
		return f.EnvVars, func(v string) string {
			_, err := strconv.ParseInt(v, f.Base, 64)
			return check(err == nil, "a whole number")
		}
	case *cli.Int64Flag:
		return f.EnvVars, func(v string) string {
			_, err := strconv.ParseInt(v, f.Base, 64)
			return check(err == nil, "a whole number")
		}
	case *cli.Float64Flag:
		return f.EnvVars, func(v string) string {
			_, err := strconv.ParseFloat(v, 64)
			return check(err == nil, "a number such as 0.5")
		}
	case *cli.DurationFlag:
		return f.EnvVars, func(v string) string {
			_, err := time.ParseDuration(v)
			return check(err == nil, "a duration such as 90s, 5m or 1h30m")
		}
	case *cli.BoolFlag:
		return f.EnvVars, func(v string) string {
			_, err := strconv.ParseBool(v)
			return check(err == nil, "true or false (or 1 or 0)")
		}
	}
	return nil, nil
}
