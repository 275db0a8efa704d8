package tests

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/connector/kafka/kafkatest"
)

// TestMain stops the real Kafka broker the opt-in suite (PTFSH_KAFKA=1)
// started, and removes the ptfsh binary the tests built, after every
// test.
func TestMain(m *testing.M) {
	code := m.Run()
	kafkatest.StopBroker()
	if buildOnce.bin != "" {
		os.RemoveAll(filepath.Dir(buildOnce.bin))
	}
	os.Exit(code)
}
