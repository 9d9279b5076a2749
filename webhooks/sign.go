package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agencyos/workspaced/workspace"
)

// Sign returns the webhook-signature header of the Standard Webhooks specification
// (github.com/standard-webhooks/standard-webhooks, spec section "Signature scheme"): for
// each secret, "v1," and the base64 HMAC-SHA256 of "<id>.<timestamp>.<body>" keyed with the
// secret's decoded bytes, space separated. Signing with both the new and the previous
// secret during a rotation's 24 hours lets receivers holding either verify.
func Sign(secrets []string, id string, ts time.Time, body []byte) (string, error) {
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, workspace.SigningSecretPrefix))
		if err != nil {
			return "", fmt.Errorf("webhooks: malformed secret: %w", err)
		}
		m := hmac.New(sha256.New, key)
		m.Write([]byte(id + "." + strconv.FormatInt(ts.Unix(), 10) + "."))
		m.Write(body)
		sigs = append(sigs, "v1,"+base64.StdEncoding.EncodeToString(m.Sum(nil)))
	}
	return strings.Join(sigs, " "), nil
}
