package store

import (
	"errors"
	"strings"
	"testing"
)

func TestNormalizeName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, display, key string // display "": rejected
	}{
		{"Bob", "Bob", "bob"},
		{"bob", "bob", "bob"},
		{"ＢＯＢ", "BOB", "bob"}, // fullwidth letters: width-mapped
		{"Dark Knight", "Dark Knight", "dark knight"},
		{"O\u0308rn", "Örn", "örn"},       // decomposed: composed (NFC)
		{"Örn", "Örn", "örn"},             // precomposed: the same account
		{"ΣΑΣ", "ΣΑΣ", "σασ"},             // Greek, one script
		{"名前", "名前", "名前"},                // Han
		{"ゲーム名前", "ゲーム名前", "ゲーム名前"},       // Katakana with Han: an allowed mix
		{"Straße", "Straße", "straße"},    // not case-folded to "strasse"
		{"bob!", "bob!", "bob!"},          // ASCII punctuation is allowed
		{"العربية", "العربية", "العربية"}, // right to left, one script
		{"b\u200dob", "", ""},             // zero-width joiner outside its Indic context
		{"b\u200bob", "", ""},             // zero-width space
		{"b\u00adob", "", ""},             // soft hyphen
		{"\u202ebob", "", ""},             // right-to-left override
		{"bob\u2066", "", ""},             // left-to-right isolate
		{"b\u043eb", "", ""},              // Cyrillic о among Latin letters
		{"a\u0627", "", ""},               // Latin and Arabic: Bidi rule
		{"\ufb01sh", "", ""},              // ligature fi (compatibility character)
		{"Ⅻ", "", ""},                     // Roman numeral (compatibility character)
		{"", "", ""},
		{" lead", "", ""},
		{"trail ", "", ""},
		{"two  spaces", "", ""},
		{"tab\there", "", ""},
		{"nul\x00", "", ""},
		{"\xff", "", ""},
		{"\u3000bob", "", ""}, // ideographic space
		{strings.Repeat("x", 33), "", ""},
		{strings.Repeat("é", 17), "", ""}, // 34 bytes
	} {
		display, key, err := NormalizeName(tc.name)
		if tc.display == "" {
			if !errors.Is(err, ErrBadName) {
				t.Errorf("NormalizeName(%q) = %q, %q, %v; want ErrBadName", tc.name, display, key, err)
			}
			if CheckName(tc.name) == nil {
				t.Errorf("CheckName(%q) accepted it", tc.name)
			}
			continue
		}
		if err != nil || display != tc.display || key != tc.key {
			t.Errorf("NormalizeName(%q) = %q, %q, %v; want %q, %q", tc.name, display, key, err, tc.display, tc.key)
		}
	}
	// What it does not catch: a name wholly in Cyrillic that looks Latin.
	if _, key, err := NormalizeName("\u0441\u043e\u0440"); err != nil || key == "cop" {
		t.Errorf("whole-script Cyrillic: %q %v", key, err)
	}
}
