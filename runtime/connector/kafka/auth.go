package kafka

import (
	"crypto/tls"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// SASL mechanisms the client speaks.
const (
	MechanismPlain       = "PLAIN"
	MechanismScramSHA256 = "SCRAM-SHA-256"
	MechanismScramSHA512 = "SCRAM-SHA-512"
)

// Auth is how a client secures its connections, Kafka's
// security.protocol with its SASL and SSL settings: TLS for SSL and
// SASL_SSL, a Mechanism for SASL_PLAINTEXT and SASL_SSL. The zero Auth is
// PLAINTEXT.
type Auth struct {
	// TLS encrypts the connections; nil: plaintext. The client uses a
	// clone of it.
	TLS *tls.Config
	// Mechanism is the SASL mechanism: "" (none), MechanismPlain,
	// MechanismScramSHA256 or MechanismScramSHA512.
	Mechanism string
	// User and Password are the SASL credentials.
	User, Password string
}

// opts are the client options of a.
func (a Auth) opts() []kgo.Opt {
	var o []kgo.Opt
	if a.TLS != nil {
		o = append(o, kgo.DialTLSConfig(a.TLS.Clone()))
	}
	switch a.Mechanism {
	case MechanismPlain:
		o = append(o, kgo.SASL(plain.Auth{User: a.User, Pass: a.Password}.AsMechanism()))
	case MechanismScramSHA256:
		o = append(o, kgo.SASL(scram.Auth{User: a.User, Pass: a.Password}.AsSha256Mechanism()))
	case MechanismScramSHA512:
		o = append(o, kgo.SASL(scram.Auth{User: a.User, Pass: a.Password}.AsSha512Mechanism()))
	}
	return o
}
