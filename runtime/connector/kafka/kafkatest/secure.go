package kafkatest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

// Security is what a fake cluster of StartSecure asks of its clients.
type Security struct {
	// Mechanism, User and Password: SASL with a superuser of this
	// mechanism (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512); "": no SASL.
	Mechanism, User, Password string
	// CertPEM and KeyPEM: TLS with this certificate (SelfSigned makes
	// one); nil: plaintext.
	CertPEM, KeyPEM []byte
}

// StartSecure is Start for a cluster that asks for SASL, TLS or both.
func StartSecure(t testing.TB, sec Security, partitions int, topics ...string) *Cluster {
	t.Helper()
	opts := []kfake.Opt{kfake.NumBrokers(1), kfake.DefaultNumPartitions(partitions)}
	if len(topics) > 0 {
		opts = append(opts, kfake.SeedTopics(int32(partitions), topics...))
	}
	if sec.Mechanism != "" {
		opts = append(opts, kfake.EnableSASL(), kfake.Superuser(sec.Mechanism, sec.User, sec.Password))
	}
	if sec.CertPEM != nil {
		cert, err := tls.X509KeyPair(sec.CertPEM, sec.KeyPEM)
		if err != nil {
			t.Fatal(err)
		}
		opts = append(opts, kfake.TLS(&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatalf("starting a fake Kafka cluster: %v", err)
	}
	t.Cleanup(c.Close)
	return &Cluster{c: c}
}

// SelfSigned makes a self-signed certificate for 127.0.0.1 and localhost
// (its own CA) and its key, PEM-encoded.
func SelfSigned(t testing.TB) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "ptfsh test broker"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}
