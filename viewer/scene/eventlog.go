package scene

// eventLog is a source's event log: at most logSize entries, oldest first. When full
// it drops its older half at once, so adding stays cheap.
type eventLog struct {
	entries []LogEntry
}

func (l *eventLog) add(frame uint64, text string) {
	if len(l.entries) >= logSize {
		k := copy(l.entries, l.entries[len(l.entries)-logSize/2:])
		l.entries = l.entries[:k]
	}
	l.entries = append(l.entries, LogEntry{Frame: frame, Text: text})
}
