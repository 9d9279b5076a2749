//go:build ignore

// contacts.go writes docs/samples/contacts.csv, the sample file docs/zero-to-crm.md
// imports: 300 made-up contacts (names drawn from lists, companies and addresses on
// .example domains, phone numbers from the ranges set aside for drama), the same file on
// every run. Regenerate it with
//
//	go run docs/samples/contacts.go > docs/samples/contacts.csv
package main

import (
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
)

var (
	first = []string{"Ada", "Alan", "Amara", "Ben", "Chloe", "Dario", "Elif", "Farah", "Gus", "Hana", "Ines", "Jonas",
		"Kofi", "Lena", "Marek", "Nadia", "Oren", "Priya", "Quinn", "Rosa", "Sami", "Tara", "Ugo", "Vera", "Wen", "Yusuf", "Zoe"}
	last = []string{"Abbott", "Baker", "Castillo", "Dubois", "Eriksen", "Fischer", "Garcia", "Haddad", "Ivanova", "Jensen",
		"Kowalski", "Larsen", "Moreau", "Nakamura", "Okafor", "Petrov", "Quint", "Rossi", "Silva", "Tanaka", "Usman", "Varga", "Weber"}
	companies = []string{"Northwind", "Globex", "Initech", "Umbrella Foods", "Stark Textiles", "Wayne Logistics", "Acme Studio",
		"Hooli Health", "Vandelay Imports", "Soylent Farms", "Tyrell Motors", "Cyberdyne Energy"}
	titles  = []string{"CEO", "Founder", "Head of Marketing", "Marketing Manager", "CTO", "Product Manager", "Sales Director", "Office Manager", "Designer", "Operations Lead"}
	sources = []string{"referral", "website", "event", "outbound"}
	cities  = []string{"Lisbon", "Berlin", "Lyon", "Leeds", "Turin", "Gdansk", "Porto", "Ghent"}
)

func main() {
	r := rand.New(rand.NewPCG(30, 2026))
	w := csv.NewWriter(os.Stdout)
	_ = w.Write([]string{"Full name", "Email", "Phone", "Company", "Job title", "Lead source", "Budget", "City"})
	seen := map[string]bool{}
	for len(seen) < 300 {
		f, l, c := first[r.IntN(len(first))], last[r.IntN(len(last))], companies[r.IntN(len(companies))]
		domain := strings.ToLower(strings.ReplaceAll(c, " ", "")) + ".example"
		email := strings.ToLower(f+"."+l) + "@" + domain
		if seen[email] {
			continue
		}
		seen[email] = true
		budget := ""
		if r.IntN(4) > 0 {
			budget = fmt.Sprint((r.IntN(40) + 1) * 2500)
		}
		_ = w.Write([]string{f + " " + l, email, fmt.Sprintf("+44 20 7946 %04d", r.IntN(1000)), c,
			titles[r.IntN(len(titles))], sources[r.IntN(len(sources))], budget, cities[r.IntN(len(cities))]})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
