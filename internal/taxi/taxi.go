// Package taxi makes the taxi rides and fares of the labs
// (examples/labs): a stream of ride events, a START and an END per ride,
// and a stream of fares, one per ride, in the order a city's feed would
// deliver them, that is out of order in event time.
//
// A ride starts every 20 seconds from Begin on. Most rides last 5 to 50
// minutes; about one in 25 lasts more than two hours, and a few END events
// never come (the long ride alerts must still alert). Most trips start and
// end inside New York City (InNYC); some leave it (ride cleansing). About
// one fare in 50 never comes (rides and fares), and forty drivers share
// the rides, so that an hour has a driver who earned the most tips.
//
// Each event arrives a moment after it happened: up to MaxDelay (90 s),
// so that a watermark one minute behind the largest time seen sees some
// rows out of order and a few late ones; about one event in 40 is held
// for 5 to 20 minutes more and comes late. Everything is drawn from a
// generator seeded by Options.Seed: the same options give the same
// streams, byte for byte.
package taxi

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"time"
)

// The city as the labs draw it: a box of longitude and latitude.
const (
	LonWest  = -74.05
	LonEast  = -73.70
	LatSouth = 40.50
	LatNorth = 41.00
)

// InNYC reports whether a point is inside the city's box.
func InNYC(lon, lat float64) bool {
	return lon >= LonWest && lon <= LonEast && lat >= LatSouth && lat <= LatNorth
}

// Options say how many rides to make, and how.
type Options struct {
	Rides int
	Seed  uint64
	// Begin is the start of ride 0; rides start Between apart.
	Begin   time.Time
	Between time.Duration
	// MaxDelay bounds the ordinary delay of an event's arrival.
	MaxDelay time.Duration
}

// Default are the options of the labs' data.
var Default = Options{Rides: 720, Seed: 2020, Begin: time.Date(2020, 1, 1, 12, 0, 0, 0, time.UTC), Between: 20 * time.Second, MaxDelay: 90 * time.Second}

// Ride is a ride event: its START or its END.
type Ride struct {
	ID                                 int64
	Start                              bool
	Time                               time.Time // the START's or the END's
	StartLon, StartLat, EndLon, EndLat float64
	Passengers                         int
	TaxiID, DriverID                   int64
	arrive                             time.Time
}

// Fare is what a ride cost, paid at its start.
type Fare struct {
	RideID, TaxiID, DriverID int64
	StartTime                time.Time
	Payment                  string // CARD or CASH
	Tip, Tolls, Total        float64
	arrive                   time.Time
}

// Generate makes the rides' events and the fares, each in the order they
// arrive.
func Generate(o Options) (rides []Ride, fares []Fare) {
	r := rand.New(rand.NewPCG(o.Seed, 0x7a11))
	delay := func() time.Duration {
		d := time.Duration(r.Int64N(int64(o.MaxDelay)))
		if r.IntN(40) == 0 {
			d += 5*time.Minute + time.Duration(r.Int64N(int64(15*time.Minute)))
		}
		return d
	}
	point := func() (float64, float64) {
		if r.IntN(100) < 88 {
			return round(LonWest+r.Float64()*(LonEast-LonWest), 4), round(LatSouth+r.Float64()*(LatNorth-LatSouth), 4)
		}
		// outside: in a ring a tenth of a degree wide around the box
		for {
			lon := LonWest - 0.1 + r.Float64()*(LonEast-LonWest+0.2)
			lat := LatSouth - 0.1 + r.Float64()*(LatNorth-LatSouth+0.2)
			if !InNYC(lon, lat) {
				return round(lon, 4), round(lat, 4)
			}
		}
	}
	for id := int64(1); id <= int64(o.Rides); id++ {
		start := o.Begin.Add(time.Duration(id) * o.Between)
		minutes := 5 + r.IntN(46)
		switch {
		case id == 7:
			minutes = 120 // exactly two hours: not a long ride
		case id == 13:
			minutes = 121
		case r.IntN(25) == 0:
			minutes = 121 + r.IntN(180)
		}
		driver := int64(1 + r.IntN(40))
		slon, slat := point()
		elon, elat := point()
		ride := Ride{ID: id, Start: true, Time: start, StartLon: slon, StartLat: slat, EndLon: elon, EndLat: elat,
			Passengers: 1 + r.IntN(4), TaxiID: 1000 + driver, DriverID: 2000 + driver}
		ride.arrive = start.Add(delay())
		rides = append(rides, ride)
		if r.IntN(60) != 0 || id == 7 || id == 13 {
			end := ride
			end.Start, end.Time = false, start.Add(time.Duration(minutes)*time.Minute)
			end.arrive = end.Time.Add(delay())
			rides = append(rides, end)
		}
		pay := "CARD"
		tip := round(r.ExpFloat64()*4, 2)
		if r.IntN(3) == 0 {
			pay, tip = "CASH", 0
		}
		tolls := 0.0
		if r.IntN(10) == 0 {
			tolls = float64(2 + r.IntN(6))
		}
		fare := Fare{RideID: id, TaxiID: ride.TaxiID, DriverID: ride.DriverID, StartTime: start, Payment: pay, Tip: tip, Tolls: tolls,
			Total: round(2.5+0.8*float64(minutes)+tip+tolls, 2)}
		fare.arrive = start.Add(delay())
		if r.IntN(50) != 0 {
			fares = append(fares, fare)
		}
	}
	sort.SliceStable(rides, func(i, j int) bool { return rides[i].arrive.Before(rides[j].arrive) })
	sort.SliceStable(fares, func(i, j int) bool { return fares[i].arrive.Before(fares[j].arrive) })
	return rides, fares
}

func round(x float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(x*p) / p
}

// timeFormat is how the CSV files write times (the session time zone, UTC).
const timeFormat = "2006-01-02 15:04:05"

// WriteRides writes ride events as CSV lines (no header, as Flink's csv
// format reads by default): ride_id, event (START or END), ts, start_lon,
// start_lat, end_lon, end_lat, passengers, taxi_id, driver_id.
func WriteRides(w io.Writer, rides []Ride) error {
	for _, r := range rides {
		ev := "END"
		if r.Start {
			ev = "START"
		}
		if _, err := fmt.Fprintf(w, "%d,%s,%s,%s,%s,%s,%s,%d,%d,%d\n", r.ID, ev, r.Time.UTC().Format(timeFormat),
			num(r.StartLon), num(r.StartLat), num(r.EndLon), num(r.EndLat), r.Passengers, r.TaxiID, r.DriverID); err != nil {
			return err
		}
	}
	return nil
}

// WriteFares writes fares as CSV lines: ride_id, taxi_id, driver_id,
// start_time, payment, tip, tolls, total.
func WriteFares(w io.Writer, fares []Fare) error {
	for _, f := range fares {
		if _, err := fmt.Fprintf(w, "%d,%d,%d,%s,%s,%s,%s,%s\n", f.RideID, f.TaxiID, f.DriverID, f.StartTime.UTC().Format(timeFormat),
			f.Payment, num(f.Tip), num(f.Tolls), num(f.Total)); err != nil {
			return err
		}
	}
	return nil
}

func num(x float64) string { return fmt.Sprintf("%g", x) }
