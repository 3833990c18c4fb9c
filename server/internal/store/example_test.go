package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/twinframe/twinframe/server/internal/store"
)

func Example() {
	dir, _ := os.MkdirTemp("", "store")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(dir, "twinframe.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	p, created, _ := s.Login(ctx, "Logan")
	fmt.Println(p.Name, created)
	_ = s.SaveAvatar(ctx, p.ID, []byte("archive bytes"), 1200)
	p, created, _ = s.Login(ctx, "Logan")
	fmt.Println(p.Name, created, string(p.Avatar), p.SavedFrame, p.Saves)
	// Output:
	// Logan true
	// Logan false archive bytes 1200 1
}
