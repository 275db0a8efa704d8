package tests

import (
	"os"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/connector/kafka/kafkatest"
)

// TestMain stops the real Kafka broker the opt-in suite (PTFSH_KAFKA=1)
// started, after every test.
func TestMain(m *testing.M) {
	code := m.Run()
	kafkatest.StopBroker()
	os.Exit(code)
}
