package main

import (
	"context"
	"errors"
	"flag"
	"os"

	"github.com/twinframe/twinframe/server/internal/cli"
	"github.com/twinframe/twinframe/server/internal/store"
)

// storeFlags are the flags that name a command's store: -db, the SQLite file of
// a single server, and -store, any store by its location (a PostgreSQL URL in
// cluster mode).
type storeFlags struct {
	fl  *cli.Flags
	db  *string
	url *string
}

func addStoreFlags(fl *cli.Flags, dbUsage string) *storeFlags {
	return &storeFlags{fl: fl,
		db: fl.String("db", "twinframe.db", dbUsage),
		url: fl.String("store", "", "store `location`: postgres://USER:PASSWORD@HOST:PORT/DATABASE (the store a cluster shares),\n"+
			"sqlite:FILE or a file path; instead of -db")}
}

// errBothStores: -db and -store both given. Only one can be the store, and
// silently preferring one would serve, or reset, the wrong players.
var errBothStores = errors.New("-db and -store both name the store: give one")

// location returns the store to open: -store if set, else -db.
func (f *storeFlags) location() (string, error) {
	set := map[string]bool{}
	f.fl.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	switch {
	case set["db"] && set["store"]:
		return "", errBothStores
	case set["store"]:
		if *f.url == "" {
			return "", errors.New("-store is empty")
		}
		return *f.url, nil
	}
	return *f.db, nil
}

// open opens the store. With mustExist, an SQLite file must already exist:
// opening creates a missing one, and a typo must not make a new store.
func (f *storeFlags) open(ctx context.Context, mustExist bool) (store.Store, error) {
	loc, err := f.location()
	if err != nil {
		return nil, err
	}
	if path, ok := store.SQLitePath(loc); ok && mustExist {
		if _, err := os.Stat(path); err != nil {
			return nil, err
		}
	}
	st, err := store.OpenURL(ctx, loc)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// exitStatus is the status of a command that could not open its store: 2 for
// flags that contradict each other, 1 otherwise.
func exitStatus(err error) int {
	if errors.Is(err, errBothStores) {
		return 2
	}
	return 1
}
