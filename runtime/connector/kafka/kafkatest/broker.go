package kafkatest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/runtime/connector/kafka"
)

// Real is true when the opt-in suite runs (PTFSH_KAFKA=1): the tests that
// take a cluster from Cluster then get a real Apache Kafka broker.
var Real = os.Getenv("PTFSH_KAFKA") == "1"

// KafkaVersion is the version of org.apache.kafka:kafka_2.13 the real
// broker runs.
const KafkaVersion = "4.1.1"

// broker is the real broker of the test binary, started once.
var broker struct {
	once    sync.Once
	servers string
	err     error
	stop    func()
}

// StartBroker starts (once per test binary) a real Apache Kafka broker:
// KRaft, one node that is broker and controller, on free loopback ports,
// from Maven Central's org.apache.kafka:kafka_2.13 jars (Maven resolves the
// classpath into ~/.m2) on the Java on the PATH, its storage formatted in
// a temporary folder, keeping records whatever their timestamps (the tests
// write 2025's; Kafka's default retention of 7 days by record time would
// delete them within minutes). It returns the bootstrap servers.
// StopBroker (from TestMain) stops it.
func StartBroker(t testing.TB) string {
	t.Helper()
	broker.once.Do(func() { broker.servers, broker.stop, broker.err = startBroker() })
	if broker.err != nil {
		t.Fatalf("starting a Kafka broker: %v", broker.err)
	}
	return broker.servers
}

// RunBroker starts a real broker as StartBroker does, for a program
// rather than a test (bench/run -kafka); the caller calls stop.
func RunBroker() (servers string, stop func(), err error) { return startBroker() }

// StopBroker stops the real broker, if one was started.
func StopBroker() {
	if broker.stop != nil {
		broker.stop()
	}
}

const brokerPOM = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>ptfsh.test</groupId><artifactId>kafka-broker</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>%s</version></dependency>
  </dependencies>
</project>
`

func startBroker() (servers string, stop func(), err error) {
	dir, err := os.MkdirTemp("", "ptfsh-kafka-")
	if err != nil {
		return "", nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	if err := os.WriteFile(filepath.Join(dir, "pom.xml"), []byte(fmt.Sprintf(brokerPOM, KafkaVersion)), 0o644); err != nil {
		return "", nil, err
	}
	mvn := exec.Command("mvn", "-q", "-B", "dependency:build-classpath", "-Dmdep.outputFile=cp.txt")
	mvn.Dir = dir
	if out, err := mvn.CombinedOutput(); err != nil {
		return "", nil, fmt.Errorf("resolving kafka_2.13 %s with Maven: %v\n%s", KafkaVersion, err, out)
	}
	cp, err := os.ReadFile(filepath.Join(dir, "cp.txt"))
	if err != nil {
		return "", nil, err
	}
	port, cport, err := freePort(), freePort(), nil
	if port == 0 || cport == 0 {
		return "", nil, fmt.Errorf("no free port")
	}
	servers = fmt.Sprintf("127.0.0.1:%d", port)
	props := fmt.Sprintf(`process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:%[2]d
listeners=PLAINTEXT://127.0.0.1:%[1]d,CONTROLLER://127.0.0.1:%[2]d
advertised.listeners=PLAINTEXT://127.0.0.1:%[1]d
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=%[3]s
offsets.topic.replication.factor=1
offsets.topic.num.partitions=3
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=3
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
log.retention.ms=-1
`, port, cport, filepath.Join(dir, "data"))
	conf := filepath.Join(dir, "server.properties")
	if err := os.WriteFile(conf, []byte(props), 0o644); err != nil {
		return "", nil, err
	}
	java := func(args ...string) *exec.Cmd {
		return exec.Command("java", append([]string{"-Xmx512m", "-cp", strings.TrimSpace(string(cp))}, args...)...)
	}
	if out, err := java("kafka.tools.StorageTool", "format", "-t", "ptfsh-test-cluster-01", "-c", conf).CombinedOutput(); err != nil {
		return "", nil, fmt.Errorf("formatting the broker's storage: %v\n%s", err, out)
	}
	logf, err := os.Create(filepath.Join(dir, "broker.log"))
	if err != nil {
		return "", nil, err
	}
	cmd := java("kafka.Kafka", conf)
	cmd.Stdout, cmd.Stderr = logf, logf
	// The broker dies with the test binary, even one killed: Pdeathsig
	// fires when the thread that started it ends, so that thread is held
	// by the goroutine that waits for the broker.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	started := make(chan error, 1)
	exited := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			close(exited)
			return
		}
		started <- nil
		cmd.Wait()
		close(exited)
	}()
	if err := <-started; err != nil {
		return "", nil, err
	}
	stop = func() {
		cmd.Process.Kill()
		<-exited
		logf.Close()
		os.RemoveAll(dir)
	}
	// Ready when it answers a metadata request with itself as a broker.
	deadline := time.Now().Add(90 * time.Second)
	for {
		select {
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "broker.log"))
			stop()
			return "", nil, fmt.Errorf("the broker exited:\n%s", tail(log, 3000))
		default:
		}
		if ready(servers) {
			return servers, stop, nil
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "broker.log"))
			stop()
			return "", nil, fmt.Errorf("the broker did not answer within 90 s:\n%s", tail(log, 3000))
		}
		time.Sleep(300 * time.Millisecond)
	}
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(bytes.TrimSpace(b))
}

func ready(servers string) bool {
	c, err := kafka.Dial(context.Background(), kafka.Config{Servers: []string{servers}, Timeout: 2 * time.Second})
	if err != nil {
		return false
	}
	defer c.Close()
	_, err = c.Topics(context.Background())
	return err == nil
}

func freePort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// CreateTopics creates topics of the given partitions on the brokers at
// servers, and deletes them when t ends (waiting until they are gone, so
// that the next test may create them again).
func CreateTopics(t testing.TB, servers string, partitions int32, topics ...string) {
	t.Helper()
	c, err := kafka.Dial(context.Background(), kafka.Config{Servers: strings.Split(servers, ","), Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, topic := range topics {
		if err := c.CreateTopic(context.Background(), topic, partitions); err != nil {
			c.Close()
			t.Fatal(err)
		}
	}
	// A new topic reaches the broker's metadata a moment later.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		tps, err := c.Partitions(context.Background(), topics)
		if err == nil && len(tps) == len(topics)*int(partitions) {
			break
		}
		if time.Now().After(deadline) {
			c.Close()
			t.Fatalf("topics %v not there 30 s after their creation: %v", topics, err)
		}
	}
	t.Cleanup(func() {
		defer c.Close()
		if err := c.DeleteTopics(context.Background(), topics...); err != nil {
			t.Errorf("deleting topics %v: %v", topics, err)
		}
	})
}
