package faker

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/brianvoe/gofakeit/v7"
)

// registerPeople adds the providers backed by gofakeit's word lists:
// names, addresses, the internet, commerce, currencies, lorem ipsum and a
// few more.
func registerPeople() {
	register("Name", map[string]builder{
		"firstName":      fake((*gofakeit.Faker).FirstName),
		"lastName":       fake((*gofakeit.Faker).LastName),
		"fullName|name":  fake(func(f *gofakeit.Faker) string { return f.FirstName() + " " + f.LastName() }),
		"nameWithMiddle": fake(func(f *gofakeit.Faker) string { return f.FirstName() + " " + f.MiddleName() + " " + f.LastName() }),
		"username":       fake(func(f *gofakeit.Faker) string { return strings.ToLower(f.FirstName() + "." + f.LastName()) }),
		"prefix":         fake((*gofakeit.Faker).NamePrefix),
		"suffix":         fake((*gofakeit.Faker).NameSuffix),
		"title":          fake((*gofakeit.Faker).JobTitle),
	})
	register("Address", map[string]builder{
		"city|cityName":    fake((*gofakeit.Faker).City),
		"streetAddress":    fake((*gofakeit.Faker).Street),
		"streetName":       fake((*gofakeit.Faker).StreetName),
		"buildingNumber":   fake((*gofakeit.Faker).StreetNumber),
		"zipCode|postcode": fake((*gofakeit.Faker).Zip),
		"country":          fake((*gofakeit.Faker).Country),
		"countryCode":      fake((*gofakeit.Faker).CountryAbr),
		"state":            fake((*gofakeit.Faker).State),
		"stateAbbr":        fake((*gofakeit.Faker).StateAbr),
		"timeZone":         fake((*gofakeit.Faker).TimeZoneRegion),
		"fullAddress": fake(func(f *gofakeit.Faker) string {
			return f.Street() + ", " + f.City() + ", " + f.StateAbr() + " " + f.Zip()
		}),
		"latitude":  fake(func(f *gofakeit.Faker) string { return strconv.FormatFloat(f.Latitude(), 'f', 8, 64) }),
		"longitude": fake(func(f *gofakeit.Faker) string { return strconv.FormatFloat(f.Longitude(), 'f', 8, 64) }),
	})
	register("Internet", map[string]builder{
		"uuid":                          fake((*gofakeit.Faker).UUID),
		"publicIpV4Address":             text(publicIPv4),
		"ipV4Address":                   fake((*gofakeit.Faker).IPv4Address),
		"privateIpV4Address":            text(func(g *Gen) string { return fmt.Sprintf("10.%d.%d.%d", g.r.IntN(256), g.r.IntN(256), g.r.IntN(256)) }),
		"ipV6Address":                   fake((*gofakeit.Faker).IPv6Address),
		"emailAddress|safeEmailAddress": fake((*gofakeit.Faker).Email),
		"url":                           fake((*gofakeit.Faker).URL),
		"domainName":                    fake((*gofakeit.Faker).DomainName),
		"domainSuffix":                  fake((*gofakeit.Faker).DomainSuffix),
		"userAgentAny|userAgent":        fake((*gofakeit.Faker).UserAgent),
		"macAddress":                    fake((*gofakeit.Faker).MacAddress),
		"password":                      fake(func(f *gofakeit.Faker) string { return f.Password(true, true, true, false, false, 12) }),
		"slug":                          fake(func(f *gofakeit.Faker) string { return f.UrlSlug(2) }),
		"httpMethod":                    fake((*gofakeit.Faker).HTTPMethod),
	})
	register("Commerce", map[string]builder{
		"productName":   fake((*gofakeit.Faker).ProductName),
		"department":    fake((*gofakeit.Faker).ProductCategory),
		"material":      fake((*gofakeit.Faker).ProductMaterial),
		"color":         fake((*gofakeit.Faker).Color),
		"promotionCode": text(func(g *Gen) string { return g.f.AdjectiveDescriptive() + strconv.Itoa(g.r.IntN(1000)) }),
		"price": {build: func(name string, args []string) (*directive, error) {
			if err := arity(args, 0, 0); err != nil {
				return nil, err
			}
			return &directive{name: name, text: func(g *Gen, dst []byte) []byte {
				cents := 100 + g.r.Int64N(99_900)
				return fmt.Appendf(dst, "%d.%02d", cents/100, cents%100)
			}}, nil
		}},
	})
	register("Currency", map[string]builder{
		"code": fake((*gofakeit.Faker).CurrencyShort),
		"name": fake((*gofakeit.Faker).CurrencyLong),
	})
	register("Lorem", map[string]builder{
		"word":      fake((*gofakeit.Faker).LoremIpsumWord),
		"sentence":  fake(func(f *gofakeit.Faker) string { return f.LoremIpsumSentence(4 + f.IntN(7)) }),
		"paragraph": fake(func(f *gofakeit.Faker) string { return f.LoremIpsumParagraph(1, 3+f.IntN(4), 4+f.IntN(7), " ") }),
		"characters|fixedString": {build: func(name string, args []string) (*directive, error) {
			if err := arity(args, 0, 1); err != nil {
				return nil, err
			}
			n := int64(255)
			if len(args) == 1 {
				var err error
				if n, err = intArg(args, 0); err != nil {
					return nil, err
				}
				if n < 0 || n > 1<<16 {
					return nil, &argError{0, fmt.Sprintf("needs 0 to %d characters, not %d", 1<<16, n)}
				}
			}
			const chars = "abcdefghijklmnopqrstuvwxyz0123456789"
			return &directive{name: name, text: func(g *Gen, dst []byte) []byte {
				for range n {
					dst = append(dst, chars[g.r.IntN(len(chars))])
				}
				return dst
			}}, nil
		}},
	})
	register("Color", map[string]builder{"name": fake((*gofakeit.Faker).Color), "hex": fake((*gofakeit.Faker).HexColor)})
	register("Company", map[string]builder{
		"name":        fake((*gofakeit.Faker).Company),
		"buzzword":    fake((*gofakeit.Faker).BuzzWord),
		"industry":    fake((*gofakeit.Faker).JobDescriptor),
		"catchPhrase": fake((*gofakeit.Faker).Slogan),
	})
	register("Job", map[string]builder{"title": fake((*gofakeit.Faker).JobTitle), "field": fake((*gofakeit.Faker).JobDescriptor)})
	register("PhoneNumber", map[string]builder{
		"cellPhone|phoneNumber": fake((*gofakeit.Faker).PhoneFormatted),
	})
	register("Book", map[string]builder{
		"title":  fake((*gofakeit.Faker).BookTitle),
		"author": fake((*gofakeit.Faker).BookAuthor),
		"genre":  fake((*gofakeit.Faker).BookGenre),
	})
	register("Animal", map[string]builder{"name": fake((*gofakeit.Faker).Animal)})
	register("Beer", map[string]builder{"name": fake((*gofakeit.Faker).BeerName), "style": fake((*gofakeit.Faker).BeerStyle)})
	register("Food", map[string]builder{"fruit": fake((*gofakeit.Faker).Fruit), "vegetable": fake((*gofakeit.Faker).Vegetable), "dish": fake((*gofakeit.Faker).Dinner)})
	register("App", map[string]builder{"name": fake((*gofakeit.Faker).AppName), "version": fake((*gofakeit.Faker).AppVersion)})
	register("Hacker", map[string]builder{
		"abbreviation": fake((*gofakeit.Faker).HackerAbbreviation),
		"adjective":    fake((*gofakeit.Faker).HackerAdjective),
		"noun":         fake((*gofakeit.Faker).HackerNoun),
		"verb":         fake((*gofakeit.Faker).HackerVerb),
	})
}

// publicIPv4 is an IPv4 address outside the private, loopback, link-local
// and multicast ranges.
func publicIPv4(g *Gen) string {
	for {
		a, b := 1+g.r.IntN(223), g.r.IntN(256)
		if a == 10 || a == 127 || a == 169 && b == 254 || a == 172 && b >= 16 && b < 32 || a == 192 && b == 168 || a == 100 && b >= 64 && b < 128 {
			continue
		}
		var buf [15]byte
		s := strconv.AppendInt(buf[:0], int64(a), 10)
		s = append(s, '.')
		s = strconv.AppendInt(s, int64(b), 10)
		s = append(s, '.')
		s = strconv.AppendInt(s, int64(g.r.IntN(256)), 10)
		s = append(s, '.')
		s = strconv.AppendInt(s, int64(g.r.IntN(256)), 10)
		return string(s)
	}
}
