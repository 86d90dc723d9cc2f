package jobs

// QueryCount is count, for the external tests.
var QueryCount = count
