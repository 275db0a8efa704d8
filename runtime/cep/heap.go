package cep

// heap is a priority queue of partial matches ordered by their first row
// that keeps java.util.PriorityQueue's array layout step for step: offer
// and poll sift as it does, removeIf compacts the survivors in order and
// heapifies, and iteration is in array order. Flink iterates its queues
// of partial matches in this order, and matches that start at the same
// row are told apart by it.
type heap struct {
	q []*Partial
}

// less is Flink's COMPUTATION_STATE_COMPARATOR: by the first row (its
// time, then its id); a partial match with no row (the start state) is
// last.
func cmpPartial(a, b *Partial) int {
	at, ai := a.startKey()
	bt, bi := b.startKey()
	switch {
	case at < bt:
		return -1
	case at > bt:
		return 1
	case ai < bi:
		return -1
	case ai > bi:
		return 1
	}
	return 0
}

func (h *heap) len() int { return len(h.q) }

func (h *heap) peek() *Partial {
	if len(h.q) == 0 {
		return nil
	}
	return h.q[0]
}

func (h *heap) offer(p *Partial) {
	h.q = append(h.q, p)
	h.siftUp(len(h.q)-1, p)
}

func (h *heap) poll() *Partial {
	if len(h.q) == 0 {
		return nil
	}
	res := h.q[0]
	n := len(h.q) - 1
	x := h.q[n]
	h.q[n] = nil
	h.q = h.q[:n]
	if n > 0 {
		h.siftDown(0, x)
	}
	return res
}

func (h *heap) siftUp(k int, x *Partial) {
	for k > 0 {
		parent := (k - 1) >> 1
		e := h.q[parent]
		if cmpPartial(x, e) >= 0 {
			break
		}
		h.q[k] = e
		k = parent
	}
	h.q[k] = x
}

func (h *heap) siftDown(k int, x *Partial) {
	n := len(h.q)
	half := n >> 1
	for k < half {
		child := 2*k + 1
		c := h.q[child]
		if right := child + 1; right < n && cmpPartial(c, h.q[right]) > 0 {
			child = right
			c = h.q[child]
		}
		if cmpPartial(x, c) <= 0 {
			break
		}
		h.q[k] = c
		k = child
	}
	h.q[k] = x
}

// removeIf removes the partial matches drop says to, as PriorityQueue's
// bulkRemove does: survivors keep their order, then the array is
// heapified.
func (h *heap) removeIf(drop func(*Partial) bool) bool {
	w := 0
	removed := false
	for _, p := range h.q {
		if drop(p) {
			removed = true
			continue
		}
		h.q[w] = p
		w++
	}
	if !removed {
		return false
	}
	for i := w; i < len(h.q); i++ {
		h.q[i] = nil
	}
	h.q = h.q[:w]
	for i := (w >> 1) - 1; i >= 0; i-- {
		h.siftDown(i, h.q[i])
	}
	return true
}
