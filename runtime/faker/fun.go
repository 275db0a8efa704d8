package faker

// registerFun adds the "fun" providers the Flink SQL cookbook uses, with
// short lists of this package's own (Java Faker's lists are longer).
func registerFun() {
	register("harry_potter", map[string]builder{
		"character|characters": pick("Harry Potter", "Hermione Granger", "Ron Weasley", "Albus Dumbledore", "Severus Snape",
			"Rubeus Hagrid", "Draco Malfoy", "Neville Longbottom", "Luna Lovegood", "Ginny Weasley", "Minerva McGonagall",
			"Sirius Black", "Remus Lupin", "Bellatrix Lestrange", "Lord Voldemort", "Dobby", "Fred Weasley", "George Weasley"),
		"spell|spells": pick("Accio", "Alohomora", "Avada Kedavra", "Crucio", "Expecto Patronum", "Expelliarmus", "Imperio",
			"Lumos", "Nox", "Obliviate", "Petrificus Totalus", "Reparo", "Riddikulus", "Sectumsempra", "Stupefy",
			"Wingardium Leviosa", "Protego", "Incendio"),
		"location|locations": pick("Hogwarts", "Diagon Alley", "Hogsmeade", "The Burrow", "Azkaban", "Gringotts",
			"The Leaky Cauldron", "Knockturn Alley", "Godric's Hollow", "Little Whinging", "Ministry of Magic", "Forbidden Forest"),
		"house|houses": pick("Gryffindor", "Hufflepuff", "Ravenclaw", "Slytherin"),
		"book|books": pick("Harry Potter and the Philosopher's Stone", "Harry Potter and the Chamber of Secrets",
			"Harry Potter and the Prisoner of Azkaban", "Harry Potter and the Goblet of Fire",
			"Harry Potter and the Order of the Phoenix", "Harry Potter and the Half-Blood Prince",
			"Harry Potter and the Deathly Hallows"),
	})
	register("dr_who", map[string]builder{
		"the_doctors|doctor": pick("First Doctor", "Second Doctor", "Third Doctor", "Fourth Doctor", "Fifth Doctor",
			"Sixth Doctor", "Seventh Doctor", "Eighth Doctor", "War Doctor", "Ninth Doctor", "Tenth Doctor",
			"Eleventh Doctor", "Twelfth Doctor", "Thirteenth Doctor", "Fourteenth Doctor", "Fifteenth Doctor"),
		"character": pick("Rose Tyler", "Martha Jones", "Donna Noble", "Amy Pond", "Rory Williams", "Clara Oswald",
			"River Song", "Captain Jack Harkness", "Sarah Jane Smith", "Bill Potts", "Yasmin Khan", "The Master"),
		"actor": pick("William Hartnell", "Patrick Troughton", "Jon Pertwee", "Tom Baker", "Peter Davison", "Colin Baker",
			"Sylvester McCoy", "Paul McGann", "Christopher Eccleston", "David Tennant", "Matt Smith", "Peter Capaldi",
			"Jodie Whittaker", "Ncuti Gatwa"),
		"species": pick("Dalek", "Cyberman", "Time Lord", "Sontaran", "Silurian", "Zygon", "Ood", "Weeping Angel", "Judoon"),
	})
	register("superhero", map[string]builder{
		"name": pick("Captain Comet", "Iron Falcon", "Night Owl", "Silver Storm", "Doctor Photon", "Red Tornado",
			"Blue Beetle", "Star Sapphire", "Green Lantern", "Black Panther", "Mister Fantastic", "Invisible Woman",
			"Rocket Raccoon", "Ms. Marvel", "The Flash", "Aquaman"),
		"power": pick("Flight", "Super Strength", "Invisibility", "Telepathy", "Telekinesis", "Super Speed",
			"Shape Shifting", "Time Travel", "Teleportation", "Weather Control", "Healing Factor", "X-Ray Vision"),
		"prefix":     pick("The", "Captain", "Doctor", "Mister", "Madam", "Iron", "Giant", "Atomic", "Cyborg", "Agent"),
		"suffix":     pick("Man", "Woman", "Boy", "Girl", "Thing", "X", "Claw", "Shadow", "Strike", "Fist"),
		"descriptor": pick("Red", "Blue", "Cosmic", "Electric", "Iron", "Magnetic", "Ultra", "Supah", "Brass", "Stealth"),
	})
	register("RickAndMorty", map[string]builder{
		"character|characters": pick("Rick Sanchez", "Morty Smith", "Summer Smith", "Beth Smith", "Jerry Smith",
			"Mr. Meeseeks", "Birdperson", "Squanchy", "Mr. Poopybutthole", "Evil Morty", "Unity", "Noob-Noob"),
		"location|locations": pick("Earth (C-137)", "Citadel of Ricks", "Anatomy Park", "Gazorpazorp", "Bird World",
			"Blips and Chitz", "Planet Squanch", "Cronenberg Earth", "Froopyland", "Purge Planet"),
	})
	register("Space", map[string]builder{
		"planet": pick("Mercury", "Venus", "Earth", "Mars", "Jupiter", "Saturn", "Uranus", "Neptune"),
		"moon":   pick("Moon", "Phobos", "Deimos", "Io", "Europa", "Ganymede", "Callisto", "Titan", "Enceladus", "Triton"),
		"galaxy": pick("Milky Way", "Andromeda", "Triangulum", "Whirlpool", "Sombrero", "Pinwheel", "Cartwheel", "Large Magellanic Cloud"),
		"nebula": pick("Orion Nebula", "Crab Nebula", "Eagle Nebula", "Ring Nebula", "Helix Nebula", "Horsehead Nebula"),
		"star": pick("Sirius", "Canopus", "Arcturus", "Vega", "Capella", "Rigel", "Procyon", "Betelgeuse", "Altair",
			"Aldebaran", "Antares", "Spica", "Pollux", "Deneb", "Proxima Centauri"),
		"constellation": pick("Orion", "Ursa Major", "Cassiopeia", "Cygnus", "Lyra", "Scorpius", "Taurus", "Leo", "Andromeda", "Perseus"),
		"agency":        pick("National Aeronautics and Space Administration", "European Space Agency", "Japan Aerospace Exploration Agency", "Indian Space Research Organisation", "China National Space Administration", "Roscosmos"),
		"nasaSpaceCraft": pick("Apollo", "Gemini", "Mercury", "Voyager", "Pioneer", "Viking", "Cassini", "Galileo",
			"New Horizons", "Juno", "Orion", "Space Shuttle Discovery", "Space Shuttle Atlantis", "Space Shuttle Endeavour"),
		"company": pick("SpaceX", "Blue Origin", "Rocket Lab", "Virgin Galactic", "Arianespace", "United Launch Alliance"),
	})
	register("HitchhikersGuideToTheGalaxy", map[string]builder{
		"character|characters": pick("Arthur Dent", "Ford Prefect", "Zaphod Beeblebrox", "Trillian", "Marvin",
			"Slartibartfast", "Deep Thought", "Eddie", "Prostetnic Vogon Jeltz", "Fenchurch", "Agrajag"),
		"starship|starships": pick("Heart of Gold", "Vogon Constructor Fleet", "Bistromath", "Starship Titanic", "Krikkit One"),
		"location|locations": pick("Earth", "Magrathea", "Milliways", "Betelgeuse V", "Damogran", "Krikkit",
			"Vogsphere", "Santraginus V", "Jaglan Beta", "Frogstar World B"),
		"planet|planets": pick("Earth", "Magrathea", "Krikkit", "Vogsphere", "Damogran", "Lamuella", "Brontitall"),
		"species":        pick("Human", "Vogon", "Dentrassi", "Golgafrinchan", "Magrathean", "Babel Fish", "Mouse", "Dolphin"),
	})
}
