package drl

import (
	"crypto/md5"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
)

// GubernatorName is the Name of the rate limit the sync design's
// Gubernator model asks for: the hash key of ratesim key id k is
// GubernatorName + "_" + the decimal id (gubernator.go:203 at v2.13.0
// joins Name and UniqueKey with "_"), e.g. "ratesim_0" for the one key of
// arrivals without keys.
const GubernatorName = "ratesim"

// GubernatorHashKey returns the hash key of ratesim key id k in the
// Gubernator model: GubernatorName + "_" + k in decimal.
func GubernatorHashKey(k uint64) string {
	return GubernatorName + "_" + strconv.FormatUint(k, 10)
}

// DefaultGubernatorPeers returns the gRPC addresses of the n daemons that
// Gubernator v2.13.0's cluster.Start(n) starts (cluster/cluster.go:127-133:
// ports 1112, 1114, ... as the listeners report them, 127.0.0.1:1112, ...),
// the peers the sync design's hash ring holds when Spec.Sync.Peers is empty.
func DefaultGubernatorPeers(n int) []string {
	ps := make([]string, n)
	for i := range ps {
		ps[i] = fmt.Sprintf("127.0.0.1:%d", 1112+2*i)
	}
	return ps
}

// gubRing is Gubernator v2.13.0's ReplicatedConsistentHash
// (replicated_hash.go), the LocalPicker every daemon uses by default
// (config.go:147: 512 replicas, FNV-1 64 of the key):
//
//   - each peer puts 512 points on the ring, point i at
//     FNV-1-64(decimal(i) + hex(md5(gRPC address))) (replicated_hash.go:78-91);
//   - a key belongs to the peer of the first point >= FNV-1-64(key),
//     wrapping to the first point (replicated_hash.go:104-119).
//
// The hash is segmentio/fasthash's fnv1.HashString64 (replicated_hash.go:33),
// which is FNV-1 (multiply, then xor) with the standard 64-bit offset and
// prime: hash/fnv's New64.
type gubRing struct {
	hashes []uint64
	peers  []int // the peer (index into the addresses) of each point
}

// gubReplicas is defaultReplicas, replicated_hash.go:29 at v2.13.0.
const gubReplicas = 512

func fnv1String(s string) uint64 {
	h := fnv.New64()
	h.Write([]byte(s))
	return h.Sum64()
}

// newGubRing returns the ring of the peers with gRPC addresses addrs; the
// index of an address is its node.
func newGubRing(addrs []string) *gubRing {
	type point struct {
		h    uint64
		peer int
	}
	pts := make([]point, 0, len(addrs)*gubReplicas)
	for p, a := range addrs {
		key := fmt.Sprintf("%x", md5.Sum([]byte(a)))
		for i := range gubReplicas {
			pts = append(pts, point{fnv1String(strconv.Itoa(i) + key), p})
		}
	}
	// Gubernator sorts with sort.Slice by hash alone; equal hashes of two
	// peers (a 64-bit collision) would be ordered arbitrarily there. Here
	// the peer index breaks the tie.
	slices.SortFunc(pts, func(a, b point) int {
		if a.h != b.h {
			if a.h < b.h {
				return -1
			}
			return 1
		}
		return a.peer - b.peer
	})
	r := &gubRing{hashes: make([]uint64, len(pts)), peers: make([]int, len(pts))}
	for i, p := range pts {
		r.hashes[i], r.peers[i] = p.h, p.peer
	}
	return r
}

// owner returns the node that owns hash key k.
func (r *gubRing) owner(k string) int {
	h := fnv1String(k)
	i, _ := slices.BinarySearch(r.hashes, h) // the first point >= h
	if i == len(r.hashes) {
		i = 0
	}
	return r.peers[i]
}

// GubernatorOwner returns the index in addrs of the daemon that owns hash
// key k in Gubernator v2.13.0's hash ring of the daemons with gRPC
// addresses addrs (see replicated_hash.go). It panics if addrs is empty.
func GubernatorOwner(addrs []string, k string) int {
	if len(addrs) == 0 {
		panic("drl: GubernatorOwner of no peers")
	}
	return newGubRing(addrs).owner(k)
}
