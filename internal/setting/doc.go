// Package setting words a setting that does not hold, the same way
// wherever its rule is checked: each configuration's Validate (extract's,
// sim's, jobs', load's) returns an *Error naming the field, and the
// command line says the variable and the flag that set it, from one table.
package setting
