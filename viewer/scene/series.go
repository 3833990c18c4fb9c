package scene

// Series is a fixed-size ring of samples, one per frame, for a graph.
type Series struct {
	Name string
	Unit string
	buf  []float32
	next int
	full bool
}

// newSeries returns an empty series that keeps the last n samples.
func newSeries(name, unit string, n int) *Series {
	return &Series{Name: name, Unit: unit, buf: make([]float32, n)}
}

// Add appends a sample, dropping the oldest when full.
func (s *Series) Add(v float32) {
	s.buf[s.next] = v
	s.next++
	if s.next == len(s.buf) {
		s.next, s.full = 0, true
	}
}

// Len returns the number of samples held.
func (s *Series) Len() int {
	if s.full {
		return len(s.buf)
	}
	return s.next
}

// Cap returns the most samples the series holds.
func (s *Series) Cap() int { return len(s.buf) }

// At returns sample i, 0 being the oldest held.
func (s *Series) At(i int) float32 {
	if s.full {
		return s.buf[(s.next+i)%len(s.buf)]
	}
	return s.buf[i]
}

// Last returns the newest sample (0 when empty).
func (s *Series) Last() float32 {
	if s.Len() == 0 {
		return 0
	}
	return s.At(s.Len() - 1)
}

// Max returns the largest sample held (0 when empty).
func (s *Series) Max() float32 {
	var m float32
	for i := range s.Len() {
		m = max(m, s.At(i))
	}
	return m
}
