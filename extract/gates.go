package extract

import "github.com/etalake/etalake/wire"

// gates are the probes a call of r waits for, in the order it enters
// them: its product's, and for a paid call its product's paid calls'.
// The free balance read proves a product's URL, but not that its paid
// calls are answered: a gateway may answer them 200 with an error
// ({"message":"Unauthorized"}, errorInAnswer) while the balance read
// goes through. Until one paid call of the product is answered as its
// contract says, one is in flight at a time, so that such an answer
// costs one ask, not one per worker; after it, they go freely.
func (c *Client) gates(r *request) []wire.Product {
	if !r.endpoint.Paid() {
		return []wire.Product{r.product}
	}
	return []wire.Product{r.product, r.product + " paid calls"}
}
