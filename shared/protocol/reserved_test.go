package protocol_test

import (
	"testing"

	"github.com/twinframe/twinframe/shared/protocol/pb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The fields removed from the protocol stay reserved by number and name, so
// that no later field reuses them with another meaning for a client built
// against an older .proto; and a payload that still carries one decodes, the
// field dropped.
func TestRemovedFieldsStayReserved(t *testing.T) {
	t.Parallel()
	cases := []struct {
		msg    proto.Message
		number protoreflect.FieldNumber
		name   protoreflect.Name
		wire   []byte // the field as an older client or server encoded it
	}{
		{&pb.NetMessageLoginResult{}, 4, "errorCode", []byte{0x20, 0x06}},
		{&pb.NetMessageLoginResult{}, 5, "error", []byte{0x2A, 0x01, 'x'}},
		{&pb.NetMessageFire{}, 4, "targetEntity", []byte{0x20, 0x4D}},
		{&pb.NetMessageEntityCreate{}, 1, "baseData", []byte{0x0A, 0x01, 0x01}},
	}
	for _, tc := range cases {
		d := tc.msg.ProtoReflect().Descriptor()
		if !d.ReservedRanges().Has(tc.number) || !d.ReservedNames().Has(tc.name) {
			t.Errorf("%s: field %d %q is not reserved by number and name", d.Name(), tc.number, tc.name)
		}
		if f := d.Fields().ByNumber(tc.number); f != nil {
			t.Errorf("%s: field %d is %s again", d.Name(), tc.number, f.Name())
		}
		m := tc.msg.ProtoReflect().New().Interface()
		if err := (proto.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(tc.wire, m); err != nil || !proto.Equal(m, tc.msg) {
			t.Errorf("%s: old field %d decodes to %v, %v; want an empty message", d.Name(), tc.number, m, err)
		}
	}
}
