package simtest

import (
	"errors"
	"fmt"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/response"
)

// Drain runs a client call to its end: every response it yielded, and the
// error it ended with. A response yielded beside an error, or a nil one
// without, breaks the iterator's contract and is an error of its own.
func Drain(responses extract.Responses) ([]*response.Received, error) {
	var got []*response.Received
	for rec, err := range responses {
		if err != nil {
			if rec != nil {
				return got, fmt.Errorf("a response yielded with the error %v: want the error alone, last", err)
			}
			return got, err
		}
		if rec == nil {
			return got, errors.New("a nil response yielded without an error")
		}
		got = append(got, rec)
	}
	return got, nil
}
