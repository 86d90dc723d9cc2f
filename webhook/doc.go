// Package webhook receives the tracking vendor's pushed updates: HTTP
// POSTs signed as Standard Webhooks (and Svix) sign them — webhook-id,
// webhook-timestamp and webhook-signature, an HMAC-SHA256 of
// "id.timestamp.body" with a whsec_ secret. A Receiver is an http.Handler
// that refuses what is not such a POST (the method, the content type, a
// body over its bound), what is not signed with the secret, what was
// signed outside the tolerance around now, and a message it has already
// taken; it hands each verified body to a Deliver function and answers
// 2xx only once that function says the body is on disk.
//
// It is the protocol only: what a body becomes (a tracking response in
// the landing journal) is the caller's Deliver — jobs wires it to load's
// receiver journal — so it imports nothing of ours, knows no warehouse
// and holds no lock. The signature is checked by the Standard Webhooks
// reference library; the tolerance, with an injected clock, and the
// record of ids seen are its own: in memory within the tolerance, and on
// disk for days (Ledger), for the webhook-id is the idempotency key of
// every retry, however late.
package webhook
