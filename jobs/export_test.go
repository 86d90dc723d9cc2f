package jobs

// QueryCount is queryCount, for the external tests.
var QueryCount = queryCount
