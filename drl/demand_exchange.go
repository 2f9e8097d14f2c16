package drl

import (
	"slices"

	"github.com/ratesim/ratesim/engine"
)

// exchangeCoordinator sends every estimate to the coordinator, which
// computes each key's drop probability or shares from the latest reports
// and pushes them to the nodes.
func (d *demand) exchangeCoordinator(sim *engine.Sim, now engine.Time) {
	if d.s.Sync.Loss == 0 && d.s.Sync.Delay.Fixed() && d.s.Sync.Delay.A > 0 {
		d.exchangeCoordinatorAtOnce(sim, now)
		return
	}
	for _, st := range d.order {
		est, key, node := st.est, st.key, st.node
		d.send(sim, now, func() {
			dk := d.keys[key]
			i, _ := slices.BinarySearch(dk.nodes, node)
			dk.est[i] = est
		})
	}
	for _, p := range d.coordinatorPushes() {
		d.send(sim, now, func() { d.push(sim, p, sim.Now()) })
	}
}

// coordinatorPushes returns what the coordinator sends each node that saw
// a key, from the latest reports: the key's drop probability (grd), or the
// node's share (fps; none for a key with no demand), keys in order.
func (d *demand) coordinatorPushes() []coordPush {
	var pushes []coordPush
	for _, k := range d.korder {
		dk := d.keys[k]
		if d.fps {
			total := sum(dk.est)
			if total <= 0 {
				continue
			}
			shares := quantize(dk.est, total)
			for i, st := range dk.sawAt {
				pushes = append(pushes, coordPush{st: st, share: shares[i]})
			}
			continue
		}
		p := d.dropProbability(sum(dk.est))
		for _, st := range dk.sawAt {
			pushes = append(pushes, coordPush{st: st, drop: p})
		}
	}
	return pushes
}

// push applies the coordinator's push p at its receipt, instant at.
func (d *demand) push(sim *engine.Sim, p coordPush, at engine.Time) {
	if d.fps {
		d.setShare(sim, p.st, p.share, at)
	} else {
		p.st.drop = p.drop
	}
}

// coordReport is a node's estimate of a key, sent to the coordinator;
// coordPush is the coordinator's answer to a node: a drop probability
// (grd) or a share (fps).
type coordReport struct {
	dk   *demandKey
	node int
	est  float64
}

type coordPush struct {
	st    *demandNode
	drop  float64
	share int64
}

// exchangeCoordinatorAtOnce is exchangeCoordinator when every message
// arrives (no loss) after the one fixed delay A > 0: its messages, sent
// one after the other at now, would be the consecutive events at now + A,
// so one event delivers them all in the same order (the reports, then the
// pushes), counting one message each as before, without an event and a
// closure per message.
func (d *demand) exchangeCoordinatorAtOnce(sim *engine.Sim, now engine.Time) {
	reports := make([]coordReport, 0, len(d.order))
	for _, st := range d.order {
		reports = append(reports, coordReport{d.keys[st.key], st.node, st.est})
	}
	pushes := d.coordinatorPushes()
	d.res.Messages += int64(len(reports) + len(pushes))
	if len(reports)+len(pushes) == 0 {
		return
	}
	d.cb.at(sim, addSat(now, d.s.Sync.Delay.A), func(at engine.Time) {
		for _, r := range reports {
			i, _ := slices.BinarySearch(r.dk.nodes, r.node)
			r.dk.est[i] = r.est
		}
		for _, p := range pushes {
			d.push(sim, p, at)
		}
	})
}

// exchangeAll sends every node's estimate of a key to every other node
// that has seen the key; each then computes its own drop probability or
// share from its own estimate and the latest it received.
func (d *demand) exchangeAll(sim *engine.Sim, now engine.Time) {
	for _, k := range d.korder {
		dk := d.keys[k]
		for _, from := range dk.sawAt {
			for _, to := range dk.sawAt {
				if to == from {
					continue
				}
				est, node := from.est, from.node
				d.send(sim, now, func() { to.learn(node, heard{est, now}) })
			}
		}
	}
	d.decideLocally(sim, now)
}

// exchangeGossip has every node that saw a key send what it knows of the
// key's estimates (its own and those it heard, with their ticks) to
// Spec.Demand.Fanout other such nodes drawn at random (stream StreamGossip); a
// receiver keeps the newest of each. Each node then computes its own drop
// probability or share from what it knows.
func (d *demand) exchangeGossip(sim *engine.Sim, now engine.Time) {
	for _, k := range d.korder {
		dk := d.keys[k]
		n := len(dk.sawAt)
		if n < 2 {
			continue
		}
		for i, from := range dk.sawAt {
			known := map[int]heard{from.node: {from.est, now}}
			for l, h := range from.view {
				known[l] = h
			}
			for range min(d.s.Demand.Fanout, n-1) {
				j := d.gossip.IntN(n - 1)
				if j >= i {
					j++ // any other node, uniformly
				}
				to := dk.sawAt[j]
				d.send(sim, now, func() {
					for l, h := range known {
						if l != to.node {
							to.learn(l, h)
						}
					}
				})
			}
		}
	}
	d.decideLocally(sim, now)
}

// learn keeps h as node l's estimate unless a newer one is known.
func (st *demandNode) learn(l int, h heard) {
	if st.view == nil {
		st.view = map[int]heard{}
	}
	if old, ok := st.view[l]; !ok || old.at <= h.at {
		st.view[l] = h
	}
}

// decideLocally has each node compute its drop probability or share from
// its own estimate and those it knows of the others.
func (d *demand) decideLocally(sim *engine.Sim, now engine.Time) {
	for _, k := range d.korder {
		dk := d.keys[k]
		ests := make([]float64, len(dk.nodes))
		for _, st := range dk.sawAt {
			me := 0
			for i, l := range dk.nodes { // node order: the sums are the coordinator's
				if l == st.node {
					ests[i], me = st.est, i
				} else {
					ests[i] = st.view[l].est
				}
			}
			total := sum(ests)
			if !d.fps {
				st.drop = d.dropProbability(total)
				continue
			}
			if total > 0 {
				d.setShare(sim, st, quantize(ests, total)[me], now)
			}
		}
	}
}
