package transform

import "errors"

// ErrUnidentified matches every error of Identify: the body is not one the
// service answers, or not one it can tell the request of.
var ErrUnidentified = errors.New("transform: response body not identified")
