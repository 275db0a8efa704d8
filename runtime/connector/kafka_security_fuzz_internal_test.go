package connector

import (
	"errors"
	"strings"
	"testing"
)

// FuzzKafkaSecurity: the security properties of a Kafka table (a JAAS
// login module entry, PEM texts of certificates and keys) are parsed or
// refused without a panic; a refusal is an option error that names one
// of the table's options, and a SASL entry taken has a user.
func FuzzKafkaSecurity(f *testing.F) {
	for _, c := range []struct{ protocol, mechanism, jaas, pem string }{
		{"SASL_PLAINTEXT", "PLAIN", `org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="se\"cret";`, ""},
		{"SASL_SSL", "SCRAM-SHA-256", `org.apache.kafka.common.security.scram.ScramLoginModule required username=bob password="x";`, "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"},
		{"SASL_PLAINTEXT", "PLAIN", `PlainLoginModule required username="`, ""},
		{"SSL", "", "", "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----"},
		{"SASL_SSL", "GSSAPI", "x", "\x00"},
	} {
		f.Add(c.protocol, c.mechanism, c.jaas, c.pem)
	}
	f.Fuzz(func(t *testing.T, protocol, mechanism, jaas, pem string) {
		o := map[string]string{"properties.security.protocol": protocol}
		if mechanism != "" {
			o["properties.sasl.mechanism"] = mechanism
		}
		if jaas != "" {
			o["properties.sasl.jaas.config"] = jaas
		}
		if pem != "" {
			o["properties.ssl.truststore.certificates"] = pem
			o["properties.ssl.keystore.certificate.chain"] = pem
			o["properties.ssl.keystore.key"] = pem
		}
		a, err := parseKafkaSecurity(o)
		if err != nil {
			var oe *kafkaOptionError
			if !errors.As(err, &oe) {
				t.Fatalf("%q: not an option error: %v", o, err)
			}
			if _, ok := o[oe.key]; oe.key != "" && !ok && !strings.HasPrefix(oe.key, "properties.") {
				t.Fatalf("%q: the error names option %q: %v", o, oe.key, err)
			}
			return
		}
		if a.Mechanism != "" && a.User == "" {
			t.Fatalf("%q: SASL %s without a user", o, a.Mechanism)
		}
	})
}
