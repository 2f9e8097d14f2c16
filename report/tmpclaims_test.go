package report

import (
	"os"
	"testing"
)

func TestTmpClaims(t *testing.T) {
	p := os.Getenv("HP_MD")
	if p == "" {
		t.Skip()
	}
	b, _ := os.ReadFile(p)
	checkClaims(t, string(b), os.Getenv("HP_CMP"))
}
