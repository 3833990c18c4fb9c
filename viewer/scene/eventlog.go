package scene

import "fmt"

// eventLog is a source's event log: at most logSize entries, oldest first. When full
// it drops its older half at once, so adding stays cheap.
type eventLog struct {
	entries []LogEntry
}

// travelled logs a travel of the avatar: the line the page and tests look for.
func (l *eventLog) travelled(from, to string, frame uint64) {
	l.add(frame, fmt.Sprintf("region %s → %s at frame %d", from, to, frame))
}

func (l *eventLog) add(frame uint64, text string) {
	if len(l.entries) >= logSize {
		k := copy(l.entries, l.entries[len(l.entries)-logSize/2:])
		l.entries = l.entries[:k]
	}
	l.entries = append(l.entries, LogEntry{Frame: frame, Text: text})
}
