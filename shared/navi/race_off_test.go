//go:build !race

package navi

const raceEnabled = false
