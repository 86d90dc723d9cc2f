package coord

import "time"

// SetLease shortens c's lease below MinLease, so that a test sees a killed
// holder's reservation expire in seconds.
func SetLease(c *Coordinator, d time.Duration) { c.lease = d }
