package estimate

// Learn is learn, for the tests of what an arrival teaches.
var Learn = learn
