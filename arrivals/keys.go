package arrivals

// keyTable interns key values: each distinct value gets a dense id, 1, 2,
// 3, ... in order of first appearance, so that two different values never
// share an id (a 64-bit hash alone could collide) and a key's value can be
// shown. Memory is proportional to the distinct keys; a value is copied
// once, at its first appearance.
type keyTable struct {
	byHash map[uint64][]uint64 // FNV-1a hash of a value -> ids with that hash
	names  []string            // names[id-1] is the value of id
	hashes []uint64            // hashes[id-1] is the FNV-1a hash of names[id-1]
}

// id returns the id of the key value b and its FNV-1a hash.
func keyID[T byteText](k *keyTable, b T) (id, hash uint64) {
	hash = hashKey(b)
	if k.byHash == nil {
		k.byHash = map[uint64][]uint64{}
	}
	for _, id := range k.byHash[hash] {
		if k.names[id-1] == string(b) { // compared without a copy
			return id, hash
		}
	}
	k.names = append(k.names, string(b))
	k.hashes = append(k.hashes, hash)
	id = uint64(len(k.names))
	k.byHash[hash] = append(k.byHash[hash], id)
	return id, hash
}

// hash returns the FNV-1a hash of the value of id, or 0 for 0.
func (k *keyTable) hash(id uint64) uint64 {
	if id == 0 || id > uint64(len(k.hashes)) {
		return 0
	}
	return k.hashes[id-1]
}

// name returns the value of id, or "" for 0 or an unknown id.
func (k *keyTable) name(id uint64) string {
	if id == 0 || id > uint64(len(k.names)) {
		return ""
	}
	return k.names[id-1]
}

// A KeyNamer is a process whose arrivals carry keys and that can give a
// key id's value (a trace's key column, Zipf ranks).
type KeyNamer interface {
	KeyName(id uint64) string
}
