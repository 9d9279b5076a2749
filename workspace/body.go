package workspace

import "encoding/json"

// Body is a POST body as the operations take it: decoded once, by NewBody, so the adapter
// can read a member it needs (REST's _detach) from the same decoding the operation
// validates; the raw bytes are kept for the idempotency fingerprint.
type Body struct {
	raw json.RawMessage
	obj map[string]json.RawMessage
	err error // why raw is not one JSON object: the operation's 400, reported in order
}

// NewBody decodes raw (DecodeObject). A body that is not a JSON object is not refused
// here: the operation refuses it after the checks that come first (the gates, the key).
func NewBody(raw []byte) Body {
	obj, err := DecodeObject(raw)
	return Body{raw: raw, obj: obj, err: err}
}

// Member returns the raw value of an object body's member name, and whether it is there.
func (b Body) Member(name string) (json.RawMessage, bool) {
	v, ok := b.obj[name]
	return v, ok
}
