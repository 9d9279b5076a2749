package oauth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"strings"
	"time"
)

// Device cookies (OWASP's "Slow Down Online Guessing Attacks with Device Cookies"): a
// successful sign-in leaves the browser a cookie naming the member, a random nonce and an
// HMAC of both under the service's key. A later password sign-in for that member from
// that browser is a known device's: it hashes in a slot strangers cannot take
// (passwordChecks), so a flood of wrong passwords from many addresses, each inside its
// budget, does not make the member wait or refuse them. The cookie grants nothing else: the
// password is still checked and the sign-in budgets still apply.
const (
	deviceCookie = "ws_device"
	deviceTTL    = 365 * 24 * time.Hour
	// deviceBudget is how many sign-ins may use one member's known-device slot per
	// deviceWindow in this process, so a copied cookie cannot hold that slot either.
	deviceBudget = 10
	deviceWindow = 15 * time.Minute
)

// deviceMAC signs a member's device cookie payload.
func (s *Server) deviceMAC(payload string) string {
	m := hmac.New(sha256.New, s.csrfKey)
	m.Write([]byte("device|" + payload))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// setDevice gives the browser a device cookie for userID.
func (s *Server) setDevice(w http.ResponseWriter, userID string) {
	var nonce [16]byte
	_, _ = rand.Read(nonce[:])
	payload := userID + "." + base64.RawURLEncoding.EncodeToString(nonce[:])
	s.setCookie(w, deviceCookie, payload+"."+s.deviceMAC(payload), int(deviceTTL.Seconds()))
}

// knownDevice reports whether the browser's device cookie was issued to userID by this
// service, and spends one of the member's known-device sign-ins (deviceBudget).
func (s *Server) knownDevice(r *http.Request, userID string) bool {
	v := s.cookie(r, deviceCookie)
	i := strings.LastIndexByte(v, '.')
	if i < 0 || !strings.HasPrefix(v, userID+".") {
		return false
	}
	if subtle.ConstantTimeCompare([]byte(v[i+1:]), []byte(s.deviceMAC(v[:i]))) != 1 {
		return false
	}
	return s.devices.allow(userID)
}
