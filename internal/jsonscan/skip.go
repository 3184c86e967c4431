package jsonscan

import "iter"

// The functions of this file find their way through text already known to
// be valid JSON (by Scan, or by encoding/json, which checks what it hands
// to an UnmarshalJSON): they check nothing, and on invalid text their
// results are unspecified (they may panic with an index out of range).

// SpaceEnd returns the end of the run of JSON white space at i.
func SpaceEnd[T Text](s T, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// StringEnd returns the offset just past the closing quote of the string
// literal whose opening quote is at i.
func StringEnd[T Text](s T, i int) int {
	for i++; ; i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
}

// NumberEnd returns the offset just past the number literal at i.
func NumberEnd[T Text](s T, i int) int {
	for ; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && c != '-' && c != '+' && c != '.' && c != 'e' && c != 'E' {
			break
		}
	}
	return i
}

// ValueEnd returns the offset just past the value that starts at i.
func ValueEnd[T Text](s T, i int) int {
	end, _ := NestedEnd(s, i)
	return end
}

// NestedEnd is ValueEnd that also returns how deep arrays and objects nest
// in the value: 0 for a scalar, 1 for [1,2], 2 for [[1]].
func NestedEnd[T Text](s T, i int) (end, deepest int) {
	switch s[i] {
	case '"':
		return StringEnd(s, i), 0
	case 't', 'n':
		return i + 4, 0
	case 'f':
		return i + 5, 0
	case '{', '[':
	default:
		return NumberEnd(s, i), 0
	}
	depth := 0
	for {
		switch s[i] {
		case '"':
			i = StringEnd(s, i)
			continue
		case '{', '[':
			if depth++; depth > deepest {
				deepest = depth
			}
		case '}', ']':
			depth--
		}
		i++
		if depth == 0 {
			return i, deepest
		}
	}
}

// Elements yields the elements of arr, an array, each without the white
// space around it.
func Elements[T Text](arr T) iter.Seq[T] {
	return func(yield func(T) bool) {
		for i := SpaceEnd(arr, 0) + 1; ; { // after '['
			if i = itemStart(arr, i); arr[i] == ']' {
				return
			}
			end := ValueEnd(arr, i)
			if !yield(arr[i:end]) {
				return
			}
			i = end
		}
	}
}

// Members yields the members of obj, an object, in order: each key as
// written (quoted, escapes and all) and its value, without the white space
// around them.
func Members[T Text](obj T) iter.Seq2[T, T] {
	return func(yield func(key, val T) bool) {
		for i := SpaceEnd(obj, 0) + 1; ; { // after '{'
			if i = itemStart(obj, i); obj[i] == '}' {
				return
			}
			end := StringEnd(obj, i)
			key := obj[i:end]
			i = SpaceEnd(obj, SpaceEnd(obj, end)+1) // after the colon
			end = ValueEnd(obj, i)
			if !yield(key, obj[i:end]) {
				return
			}
			i = end
		}
	}
}

// itemStart returns the start of the next element or member after i, the
// end of the one before (or the opening bracket), past white space and a
// comma; at the end of the container, the offset of its closing bracket.
func itemStart[T Text](s T, i int) int {
	if i = SpaceEnd(s, i); s[i] == ',' {
		i = SpaceEnd(s, i+1)
	}
	return i
}

// Count returns the number of elements of arr, an array.
func Count[T Text](arr T) int {
	n := 0
	for range Elements(arr) {
		n++
	}
	return n
}
