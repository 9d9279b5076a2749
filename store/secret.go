package store

import (
	"crypto/rand"
	"crypto/sha256"
	"hash/crc32"
	"math/big"
	"strings"
)

// Credential prefixes (docs/contract.md sections 5.2, 5.3): recognisable by secret scanners.
const (
	PrefixAgentKey     = "kagt_"
	PrefixAccessToken  = "svc_at_"
	PrefixRefreshToken = "svc_rt_"
	PrefixAuthCode     = "svc_ac_"
	PrefixClientSecret = "svc_sk_"
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// NewSecret makes a credential: prefix + 32 random bytes in base62 + a 6-character
// checksum (docs/decisions.md 7), and returns it with the SHA-256 hash that is all we store.
func NewSecret(prefix string) (plain string, hash []byte) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on Linux
	}
	body := encode62(new(big.Int).SetBytes(b[:]), 43)
	plain = prefix + body + checksum(prefix+body)
	return plain, HashSecret(plain)
}

// HashSecret is the stored form of a credential.
func HashSecret(plain string) []byte {
	h := sha256.Sum256([]byte(plain))
	return h[:]
}

// WellFormed reports whether plain carries prefix and a valid checksum, so malformed
// credentials are refused without a database lookup.
func WellFormed(plain, prefix string) bool {
	if !strings.HasPrefix(plain, prefix) || len(plain) != len(prefix)+43+6 {
		return false
	}
	body := plain[:len(plain)-6]
	for _, c := range plain[len(prefix):] {
		if !strings.ContainsRune(base62, c) {
			return false
		}
	}
	return checksum(body) == plain[len(plain)-6:]
}

func checksum(s string) string {
	return encode62(new(big.Int).SetUint64(uint64(crc32.ChecksumIEEE([]byte(s)))), 6)
}

func encode62(n *big.Int, width int) string {
	out := make([]byte, width)
	base := big.NewInt(62)
	mod := new(big.Int)
	for i := width - 1; i >= 0; i-- {
		n.DivMod(n, base, mod)
		out[i] = base62[mod.Int64()]
	}
	return string(out)
}
