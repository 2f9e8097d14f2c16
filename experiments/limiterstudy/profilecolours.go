package limiterstudy

import "github.com/ratesim/ratesim/profiles"

// Colours counts the jobs a three-colour marker (the profiles srtcm and
// trtcm, RFC 2697 and 2698) marked green, yellow and red, over every key.
// Every arrival gets one colour, so the three add up to the arrivals; which
// colours pass is the profile's yellow= and red= verdicts.
type Colours struct {
	Green  int64 `json:"green_jobs"`
	Yellow int64 `json:"yellow_jobs"`
	Red    int64 `json:"red_jobs"`
}

// colours sums the colour counts of limiter i over keys, or returns nil when
// the limiter is no colour marker.
func colours(keys []*keyState, i int) *Colours {
	var c *Colours
	for _, k := range keys {
		m, ok := k.lims[i].lim.(interface{ Counts() profiles.ColourCounts })
		if !ok {
			return nil
		}
		n := m.Counts()
		if c == nil {
			c = &Colours{}
		}
		c.Green += n.Green
		c.Yellow += n.Yellow
		c.Red += n.Red
	}
	return c
}
