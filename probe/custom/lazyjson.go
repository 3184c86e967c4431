package custom

import (
	"reflect"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"

	"github.com/promptcanary/promptcanary/probe/internal/text"
)

// lazyObject is the json variable when the answer is a JSON object: the
// map CEL would see, decoded only when an expression needs all of it. A
// member looked up by name (json.name, json.?name, has(json.name)) is
// decoded alone from the text; comparing with a value that is not a map
// (json != null) decodes nothing. Everything else is the decoded map's.
type lazyObject struct {
	src  string // the object's JSON text, whose numbers all fit a float64
	full traits.Mapper
}

var (
	_ ref.Val       = (*lazyObject)(nil)
	_ traits.Mapper = (*lazyObject)(nil)
)

// decoded is the map CEL sees for the object.
func (o *lazyObject) decoded() traits.Mapper {
	if o.full == nil {
		v, _ := text.DecodeJSON(o.src)
		o.full = types.DefaultTypeAdapter.NativeToValue(v).(traits.Mapper)
	}
	return o.full
}

// ConvertToNative implements ref.Val.
func (o *lazyObject) ConvertToNative(t reflect.Type) (any, error) {
	return o.decoded().ConvertToNative(t)
}

// ConvertToType implements ref.Val.
func (o *lazyObject) ConvertToType(t ref.Type) ref.Val { return o.decoded().ConvertToType(t) }

// Equal implements ref.Val: a map never equals a value that is not one.
func (o *lazyObject) Equal(other ref.Val) ref.Val {
	if _, ok := other.(traits.Mapper); !ok {
		return types.False
	}
	return o.decoded().Equal(other)
}

// Type implements ref.Val.
func (o *lazyObject) Type() ref.Type { return types.MapType }

// Value implements ref.Val.
func (o *lazyObject) Value() any { return o.decoded().Value() }

// Contains implements traits.Container.
func (o *lazyObject) Contains(key ref.Val) ref.Val {
	if k, ok := key.(types.String); ok && o.full == nil {
		_, found := text.Member(o.src, string(k))
		return types.Bool(found)
	}
	return o.decoded().Contains(key)
}

// Get implements traits.Indexer.
func (o *lazyObject) Get(key ref.Val) ref.Val { return o.decoded().Get(key) }

// Find implements traits.Mapper.
func (o *lazyObject) Find(key ref.Val) (ref.Val, bool) {
	if k, ok := key.(types.String); ok && o.full == nil {
		v, found := text.Member(o.src, string(k))
		if !found {
			return nil, false
		}
		return types.DefaultTypeAdapter.NativeToValue(v), true
	}
	return o.decoded().Find(key)
}

// Iterator implements traits.Iterable.
func (o *lazyObject) Iterator() traits.Iterator { return o.decoded().Iterator() }

// Size implements traits.Sizer.
func (o *lazyObject) Size() ref.Val { return o.decoded().Size() }
