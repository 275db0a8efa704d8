package connector

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/connector/kafka"
)

// The Kafka client's security properties, as Kafka names them after
// 'properties.': security.protocol, sasl.mechanism with
// sasl.jaas.config (PLAIN and SCRAM), and the ssl.* keys of PEM trust and
// key stores. Others of sasl.* and ssl.* are refused by name: a client
// that ignored one would connect otherwise than the table says.

// kafkaSecurityKeys are the security properties ptfsh honours, after
// 'properties.'.
var kafkaSecurityKeys = map[string]bool{
	"security.protocol": true, "sasl.mechanism": true, "sasl.jaas.config": true,
	"ssl.truststore.type": true, "ssl.truststore.location": true, "ssl.truststore.certificates": true,
	"ssl.keystore.type": true, "ssl.keystore.location": true, "ssl.keystore.certificate.chain": true,
	"ssl.keystore.key": true, "ssl.endpoint.identification.algorithm": true,
}

// isSecurityKey reports whether p (after 'properties.') is a security
// property, honoured or not.
func isSecurityKey(p string) bool {
	return p == "security.protocol" || strings.HasPrefix(p, "sasl.") || strings.HasPrefix(p, "ssl.")
}

// jaasRE reads a JAAS configuration of one login module:
// "<class> required username="u" password="p";".
var (
	jaasRE    = regexp.MustCompile(`^\s*([\w.$]+)\s+(required|requisite|sufficient|optional)\s*(.*?)\s*;?\s*$`)
	jaasOptRE = regexp.MustCompile(`\s*([\w.]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s"]+)`)
)

// parseKafkaSecurity reads the security properties of options o (keys
// with 'properties.') into an Auth.
func parseKafkaSecurity(o map[string]string) (kafka.Auth, error) {
	var a kafka.Auth
	get := func(p string) (string, bool) { v, ok := o["properties."+p]; return v, ok }
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the first refused key, the same each time
	for _, k := range keys {
		p, ok := strings.CutPrefix(k, "properties.")
		if !ok || !isSecurityKey(p) || kafkaSecurityKeys[p] {
			continue
		}
		why := "ptfsh does not pass it on to its client (franz-go)"
		switch {
		case strings.HasPrefix(p, "sasl.kerberos.") || strings.HasPrefix(p, "sasl.oauthbearer.") || strings.HasPrefix(p, "sasl.login."):
			why = "ptfsh speaks the SASL mechanisms PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 only"
		case strings.HasSuffix(p, ".password"):
			why = "ptfsh reads PEM trust and key stores, which have no password (an encrypted key is not supported)"
		}
		return a, kerrf(k, "option '%s' is not supported: %s; ptfsh takes %s", k, why, securityList())
	}
	protocol, _ := get("security.protocol")
	switch strings.ToUpper(protocol) {
	case "", "PLAINTEXT":
		for _, k := range keys {
			if p, ok := strings.CutPrefix(k, "properties."); ok && isSecurityKey(p) && p != "security.protocol" {
				return a, kerrf(k, "option '%s' has no effect without 'properties.security.protocol' = 'SSL', 'SASL_PLAINTEXT' or 'SASL_SSL'", k)
			}
		}
		return a, nil
	case "SSL", "SASL_PLAINTEXT", "SASL_SSL":
	default:
		return a, kerrf("properties.security.protocol", "option 'properties.security.protocol' is '%s'; Kafka's protocols are PLAINTEXT, SSL, SASL_PLAINTEXT and SASL_SSL", protocol)
	}
	protocol = strings.ToUpper(protocol)
	if strings.HasPrefix(protocol, "SASL_") {
		if err := parseSASL(o, &a); err != nil {
			return a, err
		}
	} else {
		for _, p := range []string{"sasl.mechanism", "sasl.jaas.config"} {
			if _, ok := get(p); ok {
				return a, kerrf("properties."+p, "option 'properties.%s' has no effect with 'properties.security.protocol' = '%s': SASL needs SASL_PLAINTEXT or SASL_SSL", p, protocol)
			}
		}
	}
	if strings.HasSuffix(protocol, "SSL") {
		cfg, err := parseTLS(o)
		if err != nil {
			return a, err
		}
		a.TLS = cfg
	} else {
		for _, k := range keys {
			if p, ok := strings.CutPrefix(k, "properties."); ok && strings.HasPrefix(p, "ssl.") {
				return a, kerrf(k, "option '%s' has no effect with 'properties.security.protocol' = '%s': TLS needs SSL or SASL_SSL", k, protocol)
			}
		}
	}
	return a, nil
}

func parseSASL(o map[string]string, a *kafka.Auth) error {
	mech := strings.ToUpper(o["properties.sasl.mechanism"])
	switch mech {
	case kafka.MechanismPlain, kafka.MechanismScramSHA256, kafka.MechanismScramSHA512:
	case "":
		return kerrf("properties.security.protocol", "a SASL protocol needs 'properties.sasl.mechanism' (Kafka's default, GSSAPI, is Kerberos, which ptfsh does not speak): PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512")
	default:
		return kerrf("properties.sasl.mechanism", "option 'properties.sasl.mechanism' is '%s', which ptfsh does not speak; it speaks PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512", o["properties.sasl.mechanism"])
	}
	a.Mechanism = mech
	jaas, ok := o["properties.sasl.jaas.config"]
	if !ok {
		return kerrf("properties.sasl.mechanism", "SASL %s needs the user and password in 'properties.sasl.jaas.config', e.g. 'org.apache.kafka.common.security.plain.PlainLoginModule required username=\"alice\" password=\"secret\";'", mech)
	}
	m := jaasRE.FindStringSubmatch(jaas)
	if m == nil {
		return kerrf("properties.sasl.jaas.config", "option 'properties.sasl.jaas.config' is not a JAAS login module entry ('<LoginModule class> required username=\"...\" password=\"...\";')")
	}
	module := m[1][strings.LastIndex(m[1], ".")+1:]
	want := "ScramLoginModule"
	if mech == kafka.MechanismPlain {
		want = "PlainLoginModule"
	}
	if module != want {
		return kerrf("properties.sasl.jaas.config", "option 'properties.sasl.jaas.config' names the login module %s, but SASL %s takes %s", m[1], mech, want)
	}
	rest := m[3]
	for _, kv := range jaasOptRE.FindAllStringSubmatchIndex(rest, -1) {
		key, val := rest[kv[2]:kv[3]], rest[kv[4]:kv[5]]
		if strings.HasPrefix(val, `"`) {
			val = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(val[1 : len(val)-1])
		}
		switch key {
		case "username":
			a.User = val
		case "password":
			a.Password = val
		}
	}
	if a.User == "" {
		return kerrf("properties.sasl.jaas.config", "option 'properties.sasl.jaas.config' gives no username")
	}
	return nil
}

func parseTLS(o map[string]string) (*tls.Config, error) {
	get := func(p string) string { return o["properties."+p] }
	for _, p := range []string{"ssl.truststore.type", "ssl.keystore.type"} {
		if v := get(p); v != "" && !strings.EqualFold(v, "PEM") {
			return nil, kerrf("properties."+p, "option 'properties.%s' is '%s'; ptfsh reads PEM stores only (export a JKS or PKCS12 store's certificates as PEM, e.g. keytool -exportcert -rfc, or openssl pkcs12 -nodes)", p, v)
		}
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	var ca []byte
	if loc := get("ssl.truststore.location"); loc != "" {
		b, err := os.ReadFile(loc)
		if err != nil {
			return nil, kerrf("properties.ssl.truststore.location", "option 'properties.ssl.truststore.location': %v", err)
		}
		ca = b
	}
	if pemText := get("ssl.truststore.certificates"); pemText != "" {
		ca = append(ca, '\n')
		ca = append(ca, pemText...)
	}
	if len(ca) > 0 {
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(ca) {
			key := "properties.ssl.truststore.location"
			if get("ssl.truststore.certificates") != "" {
				key = "properties.ssl.truststore.certificates"
			}
			return nil, kerrf(key, "option '%s' holds no PEM certificate", key)
		}
	}
	var certPEM, keyPEM []byte
	if loc := get("ssl.keystore.location"); loc != "" {
		b, err := os.ReadFile(loc)
		if err != nil {
			return nil, kerrf("properties.ssl.keystore.location", "option 'properties.ssl.keystore.location': %v", err)
		}
		certPEM, keyPEM = b, b // one PEM file with the key and its certificate chain
	}
	if c := get("ssl.keystore.certificate.chain"); c != "" {
		certPEM = []byte(c)
	}
	if k := get("ssl.keystore.key"); k != "" {
		keyPEM = []byte(k)
	}
	if len(certPEM) > 0 || len(keyPEM) > 0 {
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			key := "properties.ssl.keystore.location"
			if get("ssl.keystore.location") == "" {
				key = "properties.ssl.keystore.key"
			}
			return nil, kerrf(key, "option '%s': the client's key and certificate: %v", key, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	switch alg, set := o["properties.ssl.endpoint.identification.algorithm"]; {
	case !set || strings.EqualFold(alg, "https"):
	case alg == "":
		// Kafka's empty algorithm: the chain is checked, the host name not.
		roots := cfg.RootCAs
		cfg.InsecureSkipVerify = true
		cfg.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return fmt.Errorf("the broker sent no certificate")
			}
			inter := x509.NewCertPool()
			for _, c := range cs.PeerCertificates[1:] {
				inter.AddCert(c)
			}
			_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
			return err
		}
	default:
		return nil, kerrf("properties.ssl.endpoint.identification.algorithm", "option 'properties.ssl.endpoint.identification.algorithm' is '%s'; Kafka's values are 'https' (check the broker's host name, the default) and '' (do not)", alg)
	}
	return cfg, nil
}

func securityList() string {
	var ks []string
	for k := range kafkaSecurityKeys {
		ks = append(ks, "properties."+k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}
