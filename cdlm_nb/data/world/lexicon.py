"""The vocabulary of the embedded world: name pools and the event types with their sentence templates.

The other modules of `cdlm_nb.data.world` turn these into documents; this module is only data (plus the small
dataclasses describing it), so a reader can add an event type without touching the generator.

Template language (used by `leads`, `facts` and `fillers`):

- `{role}` names a fact of the event type (a participant, place, time, number or text). Entities are written
  in full at their first mention in a document and by an alias later (surname, short name, description,
  pronoun); numbers and texts are stated as values.
- `{event:form}` names an event and the surface form to use, e.g. `{core:n}` = a noun such as "quake",
  `{core:v}` = a past-tense verb such as "struck". Every type has a `core` event (what the cluster is about);
  `{say:v}` and `{announce:v}` are reporting verbs (each mention its own event).
- `{stranger}` is a random bystander (a new person, mentioned once) and `{n}` a random small number: filler
  noise that no other document repeats.
- `[ ... ]` is optional: the writer includes it only when the document states every fact inside.

Sentences are tokenised on words and punctuation, so write them as plain English.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# ---------------------------------------------------------------------------------------------------------
# Describing an event type
# ---------------------------------------------------------------------------------------------------------

ENTITY_KINDS = ("person", "org", "place", "time", "thing")  # get gold mentions (ECB+ entity tags below)
VALUE_KINDS = ("number", "text")  # stated as values, no mention

#: ECB+ tag per entity kind (the `type` of a gold mention).
ENTITY_TAGS = {
    "person": "HUMAN_PART_PER",
    "org": "HUMAN_PART_ORG",
    "place": "LOC_GEO",
    "time": "TIME_DATE",
    "thing": "NON_HUMAN_PART",
}


@dataclass(frozen=True)
class Role:
    """One fact slot of an event type: who/what/where/when or a number, drawn afresh for every subtopic."""

    name: str
    kind: str  # one of ENTITY_KINDS + VALUE_KINDS
    pool: str = ""  # org: company/club/union; thing: product/award/building; text: a TEXT_POOLS key
    descriptions: tuple[str, ...] = ()  # later-mention aliases, e.g. ("the official",)
    occupation: str = ""  # persons: shown in their profile paragraph (bridge questions)
    low: float = 0.0  # numbers: range and decimals
    high: float = 0.0
    decimals: int = 0


@dataclass(frozen=True)
class Event:
    """An event and its trigger words per surface form; `reporting` events are singletons (each 'said')."""

    name: str
    forms: dict[str, tuple[str, ...]]
    tag: str = "ACTION_OCCURRENCE"
    reporting: bool = False


@dataclass(frozen=True)
class Bridge:
    """A two-hop question: the article names `key`, whose profile paragraph holds the answer."""

    key: str  # role whose profile answers
    attribute: str  # "birth_city", "founded" or "headquarters"
    question: str  # format string over role names, filled with their names


@dataclass(frozen=True)
class Comparison:
    """A comparison question between the two sibling subtopics of a topic on one number."""

    number: str  # the compared number role; the larger value wins
    handle: str  # the role whose name identifies each side (and is the answer)
    question: str  # format string with {a} and {b}
    yes_no: str  # the same comparison asked as a yes/no question: "yes" when {a} has the larger number


@dataclass(frozen=True)
class EventType:
    """Everything needed to write news about one kind of event (earthquake, acquisition, ...)."""

    name: str  # also the classification label
    title: str  # article title, format string over role names and {year}
    roles: tuple[Role, ...]
    anchors: tuple[str, ...]  # roles every document states (who/where the story is about)
    events: tuple[Event, ...]
    leads: tuple[str, ...]  # opening sentences; one of them starts each document
    facts: tuple[str, ...]  # sentences stating one or more facts
    fillers: tuple[str, ...]  # type-specific sentences that state no fact
    comparison: Comparison
    bridge: Bridge | None = None
    role_by_name: dict[str, Role] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "role_by_name", {role.name: role for role in self.roles})


def person(name: str, occupation: str, *descriptions: str) -> Role:
    return Role(name, "person", occupation=occupation, descriptions=descriptions)


def org(name: str, pool: str, *descriptions: str) -> Role:
    return Role(name, "org", pool=pool, descriptions=descriptions)


def thing(name: str, pool: str, *descriptions: str) -> Role:
    return Role(name, "thing", pool=pool, descriptions=descriptions)


def number(name: str, low: float, high: float, decimals: int = 0) -> Role:
    return Role(name, "number", low=low, high=high, decimals=decimals)


def text(name: str, pool: str) -> Role:
    return Role(name, "text", pool=pool)


def place(*descriptions: str) -> Role:
    return Role("place", "place", descriptions=descriptions or ("the city",))


TIME = Role("time", "time")

KILL = Event("kill", {"v": ("killed",), "ing": ("killing",)})
INJURE = Event("injure", {"v": ("injured", "hurt"), "ing": ("injuring", "hurting")})

#: Events every type may use: reporting verbs, one singleton event per mention as in ECB+.
REPORTING = (
    Event("say", {"v": ("said",)}, tag="ACTION_REPORTING", reporting=True),
    Event("announce", {"v": ("announced",)}, tag="ACTION_REPORTING", reporting=True),
)

# ---------------------------------------------------------------------------------------------------------
# Pools: facts are drawn from these per subtopic, so a model cannot memorise "earthquake -> Chile"
# ---------------------------------------------------------------------------------------------------------

FIRST_NAMES = {
    "she": (
        "Maria", "Anna", "Sofia", "Elena", "Laura", "Fatima", "Aisha", "Mei", "Yuki", "Priya", "Olga", "Ingrid",
        "Clara", "Lucia", "Amara", "Nadia", "Hana", "Leila", "Rosa", "Julia", "Sarah", "Emma", "Chloe", "Grace",
        "Helen", "Irene", "Joanna", "Karin", "Lena", "Marta", "Nora", "Paula", "Rita", "Sana", "Tara", "Vera",
        "Zara", "Alice", "Beatriz", "Carmen", "Daria", "Esther", "Farah", "Gloria", "Ines", "Jana", "Keiko",
        "Lina", "Mariam", "Noor", "Ophelia", "Petra", "Rania", "Silvia", "Teresa", "Ursula", "Valeria", "Wanda",
    ),
    "he": (
        "James", "Carlos", "Ahmed", "Luca", "Hiroshi", "Rahul", "Ivan", "Lars", "Pedro", "Omar", "Daniel",
        "Mateo", "Kwame", "Tomas", "Yusuf", "Chen", "Arjun", "Felix", "Hugo", "Marco", "David", "Peter", "Samuel",
        "Andre", "Boris", "Diego", "Emil", "Farid", "Gustav", "Hassan", "Igor", "Jonas", "Karim", "Leon", "Milan",
        "Nikolai", "Oscar", "Pablo", "Rafael", "Stefan", "Tariq", "Victor", "Walter", "Xavier", "Yosef", "Anton",
        "Bruno", "Cyril", "Dmitri", "Enzo", "Filip", "George", "Henrik", "Isaac", "Joao", "Kenji", "Malik",
    ),
}

SURNAMES = (
    "Alvarez", "Nakamura", "Okafor", "Petrov", "Lindqvist", "Moreau", "Schneider", "Haddad", "Kowalski",
    "Fernandes", "Osei", "Tanaka", "Gupta", "Novak", "Rossi", "Jensen", "Mbeki", "Castillo", "Dubois", "Weber",
    "Ibrahim", "Kim", "Larsen", "Mendes", "Nowak", "Orlov", "Papadopoulos", "Quinn", "Reyes", "Santos",
    "Takahashi", "Uddin", "Varga", "Wojcik", "Yilmaz", "Zhang", "Abbott", "Bianchi", "Costa", "Demir", "Eriksen",
    "Fischer", "Garcia", "Horvat", "Ivanova", "Jovanovic", "Kaplan", "Lopez", "Marino", "Nielsen", "Ortega",
    "Park", "Ramos", "Silva", "Torres", "Ueda", "Vasquez", "Walsh", "Xu", "Young", "Zimmerman", "Acheampong",
    "Barros", "Chaudhry", "Dalton", "Esposito", "Fontaine", "Gallagher", "Hoffmann", "Iqbal", "Jimenez",
    "Keller", "Lombardi", "Maalouf", "Nair", "Olsen", "Pereira", "Rahman", "Sorensen", "Tran", "Urbina",
    "Vogel", "Wagner", "Yamamoto", "Zaidi", "Adeyemi", "Brennan", "Cardoso", "Delgado", "Engel", "Ferreira",
    "Gomez", "Hansen", "Ishikawa", "Janssen", "Kovacs", "Lambert", "Mazur", "Navarro", "Oyelaran", "Pham",
    "Richter", "Sandoval", "Toivonen", "Valdez", "Whitfield", "Yoshida", "Aguilar", "Bergstrom", "Chowdhury",
    "Dimitrov", "Ekwueme", "Fuentes", "Greco", "Holm", "Ilunga", "Jaramillo", "Kuznetsov", "Laine", "Molina",
    "Ndiaye", "Obi", "Pacheco", "Rinaldi", "Szabo", "Thorsen", "Uchenna", "Vieira", "Wiśniewski", "Yadav",
)

PLACES = (
    ("Valparaiso", "Chile"), ("Pokhara", "Nepal"), ("Izmir", "Turkey"), ("Cebu", "the Philippines"),
    ("Mendoza", "Argentina"), ("Sendai", "Japan"), ("Padang", "Indonesia"), ("Arequipa", "Peru"),
    ("Tabriz", "Iran"), ("Oaxaca", "Mexico"), ("Cusco", "Peru"), ("Davao", "the Philippines"),
    ("Lyon", "France"), ("Porto", "Portugal"), ("Gdansk", "Poland"), ("Bergen", "Norway"), ("Graz", "Austria"),
    ("Leeds", "England"), ("Cork", "Ireland"), ("Turin", "Italy"), ("Seville", "Spain"), ("Ghent", "Belgium"),
    ("Utrecht", "the Netherlands"), ("Aarhus", "Denmark"), ("Tampere", "Finland"), ("Brno", "the Czech Republic"),
    ("Cluj", "Romania"), ("Plovdiv", "Bulgaria"), ("Thessaloniki", "Greece"), ("Split", "Croatia"),
    ("Kaunas", "Lithuania"), ("Tartu", "Estonia"), ("Lviv", "Ukraine"), ("Kazan", "Russia"), ("Tbilisi", "Georgia"),
    ("Kumasi", "Ghana"), ("Mombasa", "Kenya"), ("Durban", "South Africa"), ("Ibadan", "Nigeria"),
    ("Dakar", "Senegal"), ("Marrakesh", "Morocco"), ("Alexandria", "Egypt"), ("Arusha", "Tanzania"),
    ("Kampala", "Uganda"), ("Lusaka", "Zambia"), ("Bulawayo", "Zimbabwe"), ("Pune", "India"),
    ("Chittagong", "Bangladesh"), ("Lahore", "Pakistan"), ("Kandy", "Sri Lanka"), ("Chiang Mai", "Thailand"),
    ("Da Nang", "Vietnam"), ("Penang", "Malaysia"), ("Busan", "South Korea"), ("Chengdu", "China"),
    ("Kaohsiung", "Taiwan"), ("Perth", "Australia"), ("Dunedin", "New Zealand"), ("Calgary", "Canada"),
    ("Halifax", "Canada"), ("Tucson", "the United States"), ("Spokane", "the United States"),
    ("Memphis", "the United States"), ("Tulsa", "the United States"), ("Curitiba", "Brazil"),
    ("Recife", "Brazil"), ("Medellin", "Colombia"), ("Cuenca", "Ecuador"), ("Rosario", "Argentina"),
    ("Montevideo", "Uruguay"), ("Cochabamba", "Bolivia"), ("Guadalajara", "Mexico"), ("Leon", "Nicaragua"),
    ("Antigua", "Guatemala"), ("Limassol", "Cyprus"), ("Haifa", "Israel"), ("Irbid", "Jordan"),
    ("Tripoli", "Lebanon"), ("Basra", "Iraq"), ("Muscat", "Oman"), ("Sfax", "Tunisia"), ("Oran", "Algeria"),
    ("Almaty", "Kazakhstan"), ("Samarkand", "Uzbekistan"), ("Ulaanbaatar", "Mongolia"), ("Yangon", "Myanmar"),
    ("Siem Reap", "Cambodia"), ("Suva", "Fiji"), ("Reykjavik", "Iceland"), ("Uppsala", "Sweden"),
    ("Basel", "Switzerland"), ("Leipzig", "Germany"), ("Bremen", "Germany"), ("Nantes", "France"),
    ("Bologna", "Italy"), ("Bilbao", "Spain"), ("Malaga", "Spain"), ("Coimbra", "Portugal"),
    ("Debrecen", "Hungary"), ("Kosice", "Slovakia"), ("Maribor", "Slovenia"), ("Novi Sad", "Serbia"),
)

#: Invented company names are two syllable parts ("Kel" + "vora"): hundreds of unique, pronounceable brands.
NAME_HEADS = (
    "Nor", "Kel", "Bri", "Ves", "Tal", "Mar", "Zen", "Cor", "Lum", "Ast", "Dex", "Hal", "Ori", "Pax", "Quen",
    "Ren", "Sol", "Tor", "Ula", "Vel", "Wyn", "Yar", "Cal", "Fen", "Gal", "Isk", "Jov", "Lor", "Mir", "Nex",
)
NAME_TAILS = (
    "vex", "vora", "tis", "ara", "dion", "mark", "ton", "wave", "lix", "nova", "rion", "ford", "well", "stone",
    "bright", "path", "gate", "line", "field", "tek", "ium", "ora", "adyne", "aris", "ento", "ova", "ux", "eon",
)

#: Company suffix -> industry (the profile paragraph says "an X company").
COMPANY_KINDS = {
    "Systems": "software", "Foods": "food", "Energy": "energy", "Pharma": "pharmaceutical",
    "Logistics": "logistics", "Motors": "car", "Media": "media", "Holdings": "investment",
    "Labs": "technology", "Textiles": "textile", "Steel": "steel", "Airways": "airline",
    "Chemicals": "chemicals", "Retail": "retail",
}

CLUB_SUFFIXES = ("United", "Rovers", "Athletic", "Wanderers", "City", "Rangers")
UNION_HEADS = ("National", "United", "Independent", "General", "Federated", "Allied", "Central", "Free")
UNION_TRADES = (
    "Rail", "Dock", "Steel", "Textile", "Transport", "Postal", "Mine", "Auto", "Chemical", "Food", "Port",
    "Airport", "Hospital", "Bus", "Printing", "Warehouse",
)
PRODUCT_MODELS = ("X2", "Pro", "One", "Air", "S5", "Max", "Neo", "Go", "Flex", "Mini", "3", "Ultra")
AWARD_KINDS = ("Prize", "Medal", "Award")
BUILDINGS = (
    "warehouse", "apartment block", "textile factory", "hotel", "shopping centre", "chemical plant",
    "market hall", "printing works", "furniture store", "office tower", "school", "cinema",
)

TEXT_POOLS = {
    "crime": (
        "fraud", "armed robbery", "arson", "money laundering", "bribery", "tax evasion", "kidnapping",
        "embezzlement", "drug trafficking", "assault", "extortion", "forgery", "smuggling", "burglary",
    ),
    "position": (
        "chief executive", "chair", "finance director", "president", "general manager", "chief operating officer",
        "head of research", "managing director",
    ),
    "category": (
        "smartphone", "laptop", "smartwatch", "tablet", "electric scooter", "drone", "digital notebook",
        "games console", "robot vacuum", "camera", "pair of headphones", "electric bicycle",
    ),
}

# ---------------------------------------------------------------------------------------------------------
# Generic filler: sentences any report may contain; they state no fact of the cluster
# ---------------------------------------------------------------------------------------------------------

GENERIC_FILLERS = (
    "News of the {core:n} spread quickly on social media.",
    "Further details are expected later this week.",
    "Local radio stations interrupted their programmes to report the news.",
    "{stranger}, who lives nearby, {say:v} people were still trying to understand what had happened.",
    "{stranger}, a local shop owner, {say:v} it had been a difficult week.",
    "Reporters gathered outside as the day went on.",
    "The weather was mild for the time of year.",
    "It was not the first such event in recent years.",
    "Officials promised to publish a full report.",
    "Commentators said the {core:n} would be discussed for months.",
    "Several newspapers carried the story on their front pages.",
    "About {n} people watched the news conference online.",
    "{stranger}, a university lecturer, {say:v} the public deserved clear answers.",
    "Television crews arrived within the hour.",
    "Many readers wrote to the newspaper about the {core:n}.",
    "The mood in the city was calm by the evening.",
)

# ---------------------------------------------------------------------------------------------------------
# Event types
# ---------------------------------------------------------------------------------------------------------

EARTHQUAKE = EventType(
    name="earthquake",
    title="{year} {place} earthquake",
    roles=(
        place("the region", "the area"), TIME, number("magnitude", 4.5, 7.9, 1), number("deaths", 3, 240),
        number("injured", 15, 900), number("depth", 5, 70), number("homes", 40, 6000),
        number("aftershocks", 4, 60),
        person("official", "civil protection official", "the official", "the emergency chief"),
    ),
    anchors=("place",),
    events=(Event("core", {"n": ("earthquake", "quake", "tremor"), "v": ("struck", "hit", "rocked", "shook")}),
            KILL, INJURE),
    leads=(
        "A powerful [magnitude {magnitude} ]{core:n} {core:v} {place}[ on {time}][, {kill:ing} at least {deaths} "
        "people and leaving many more without shelter].",
        "At least {deaths} people were {kill:v} when a strong[ magnitude {magnitude}] {core:n} {core:v} {place}"
        "[ on {time}], officials {say:v}.",
        "[On {time}, ]a {core:n}[ measuring {magnitude}] {core:v} {place}, sending residents running into the "
        "streets.",
        "A strong {core:n} {core:v} {place}[ on {time}], damaging roads, bridges and power lines[ and {injure:ing} "
        "{injured} people].",
    ),
    facts=(
        "The {core:n} {kill:v} {deaths} people[ and {injure:v} {injured} others], officials {say:v}, warning that "
        "the toll could still rise.",
        "{official} {say:v} {deaths} people had died and {injured} were {injure:v} across the affected districts.",
        "At least {injured} people were {injure:v}, many of them by falling debris[, according to {official}].",
        "The {core:n} had a magnitude of {magnitude}, making it the strongest to hit the area in years.",
        "Seismologists put the magnitude of the {core:n} at {magnitude} and recorded it on instruments hundreds "
        "of kilometres away.",
        "The {core:n} was centred at a depth of {depth} kilometres, which experts said made the shaking worse.",
        "Its epicentre lay {depth} kilometres below the surface, according to the national geological survey.",
        "The {core:n} occurred on {time}, shortly before dawn, when most people were still asleep.",
        "The {core:n} {core:v} on {time}, in the middle of the working day.",
        "About {homes} homes were destroyed or badly damaged[ in {place}].",
        "Engineers counted {homes} damaged houses and said many would have to be demolished.",
        "More than {aftershocks} aftershocks were recorded in the following hours.",
        "{official}, the head of the national emergency agency, {say:v} rescue teams were working through "
        "the night.",
        "{official} urged residents to stay out of damaged buildings until engineers had inspected them.",
    ),
    fillers=(
        "Rescue workers searched the rubble for survivors with sniffer dogs.",
        "Schools in the area were closed as a precaution.",
        "Power was cut to {n} neighbourhoods.",
        "Hospitals reported a steady stream of patients after the {core:n}.",
        "Many families spent the night outdoors, afraid to return to their houses.",
    ),
    comparison=Comparison("deaths", "place", "Which earthquake killed more people, the one in {a} or the one in {b}?",
                          "Did the earthquake in {a} kill more people than the one in {b}?"),
)

FLOOD = EventType(
    name="flood",
    title="{year} {place} floods",
    roles=(
        place("the region", "the city"), TIME, number("rainfall", 80, 400), number("evacuated", 200, 20000),
        number("deaths", 2, 60), number("missing", 2, 90), number("shelters", 5, 120),
        person("governor", "regional governor", "the governor"),
    ),
    anchors=("place",),
    events=(Event("core", {"n": ("floods", "flooding"), "v": ("flooded", "swamped", "inundated")}),
            Event("evacuate", {"v": ("evacuated",), "n": ("evacuation",)}), KILL),
    leads=(
        "Severe {core:n} hit {place}[ on {time}], cutting off whole villages[ and {kill:ing} {deaths} people].",
        "[On {time}, ]rising rivers {core:v} parts of {place}[ and forced {evacuated} people from their homes].",
        "Days of heavy rain {core:v} {place}[ on {time}], turning streets into rivers and closing the main roads.",
    ),
    facts=(
        "The {core:n} {kill:v} {deaths} people, {governor} {say:v}, adding that the number could rise.",
        "Authorities {say:v} the {core:n} had {kill:v} {deaths} people, most of them in low-lying districts.",
        "About {evacuated} residents were {evacuate:v}[ from {place}] as the water kept rising.",
        "{governor} {say:v} about {evacuated} people had been {evacuate:v} by boat and by helicopter.",
        "Up to {rainfall} millimetres of rain fell in two days, more than the region usually gets in a month.",
        "Forecasters {say:v} {rainfall} millimetres of rain had fallen[ on {place}] since the weekend.",
        "The {core:n} began on {time}, after a river burst its banks during the night.",
        "Another {missing} people were still missing, and the search continued along the river.",
        "Rescuers were looking for {missing} people who had not been heard from since the water rose.",
        "Authorities opened {shelters} emergency shelters in schools and sports halls.",
        "Water levels rose fastest in {place}, where the river runs through the old town.",
        "{governor}, the regional governor, {say:v} the army had been called in to help with the rescue.",
    ),
    fillers=(
        "Several bridges were closed to traffic.",
        "Volunteers handed out food and blankets.",
        "More rain is forecast for the coming days.",
        "Farmers said crops had been ruined by the {core:n}.",
        "Drinking water was brought in by truck.",
    ),
    comparison=Comparison("evacuated", "place",
                          "Which floods forced more people from their homes, those in {a} or those in {b}?",
                          "Did the floods in {a} force more people from their homes than those in {b}?"),
)

FIRE = EventType(
    name="fire",
    title="{year} {place} {building} fire",
    roles=(
        place(), TIME, thing("building", "building", "the building"),
        org("owner", "company", "the company", "the owner"),
        number("firefighters", 20, 300), number("injured", 2, 80), number("hours", 2, 30),
        person("chief", "fire chief", "the fire chief"),
    ),
    anchors=("place", "building"),
    events=(Event("core", {"n": ("fire", "blaze"), "v": ("broke out", "started")}),
            Event("destroy", {"v": ("destroyed", "gutted")}), INJURE),
    leads=(
        "A {core:n} {core:v} at {building} in {place}[ on {time}][, {injure:ing} {injured} people], and thick "
        "smoke hung over the district.",
        "A large {core:n} {destroy:v} {building} in {place}[ on {time}], sending flames high into the sky.",
        "[On {time}, ]a {core:n} swept through {building} in {place}, forcing nearby residents to leave.",
    ),
    facts=(
        "{injured} people were {injure:v}, most of them by smoke[, {chief} {say:v}].",
        "About {firefighters} firefighters were sent to tackle the {core:n}, some of them from nearby towns.",
        "{chief} {say:v} {firefighters} firefighters had fought the {core:n} from the ground and from ladders.",
        "It took crews {hours} hours to bring the {core:n} under control.",
        "The {core:n} burned for {hours} hours before it was put out.",
        "The property belonged to {owner}, which had bought it several years ago.",
        "{owner}, which owned {building}, {say:v} it was cooperating with investigators.",
        "The {core:n} {core:v} on {time}, late in the evening, when the building was almost empty.",
        "{chief}, the local fire chief, {say:v} the cause of the {core:n} was not yet known.",
        "Smoke could be seen across {place} for most of the day.",
    ),
    fillers=(
        "Investigators have not yet determined what caused the {core:n}.",
        "Nearby streets were closed for most of the day.",
        "Neighbours described seeing thick black smoke.",
        "Insurance experts said the damage would be costly.",
    ),
    comparison=Comparison("firefighters", "place", "Which fire needed more firefighters, the one in {a} or the one in "
                                                   "{b}?",
                          "Did the fire in {a} need more firefighters than the one in {b}?"),
    bridge=Bridge("owner", "founded", "In what year was the company that owned the {building} destroyed by fire in "
                                      "{place} founded?"),
)

ARREST = EventType(
    name="arrest",
    title="Arrest of {suspect}",
    roles=(
        person("suspect", "former accountant", "the suspect"), number("age", 19, 67), place(), TIME,
        text("crime", "crime"), number("bail", 5000, 500000), number("officers", 4, 80),
        person("spokesperson", "police spokesperson", "the spokesperson", "the police spokesperson"),
    ),
    anchors=("suspect",),
    events=(Event("core", {"n": ("arrest", "detention"), "v": ("arrested", "detained")}),
            Event("charge", {"v": ("charged",)})),
    leads=(
        "Police {core:v} {suspect}[ in {place}][ on {time}][ on suspicion of {crime}] after a long investigation.",
        "{suspect}[, aged {age},] was {core:v}[ in {place}][ on {time}] in an early morning raid.",
        "[On {time}, ]police {core:v} {suspect}[ in {place}], ending a search that had lasted several months.",
    ),
    facts=(
        "{suspect} has been {charge:v} with {crime} and is due to appear in court next week.",
        "The suspect, aged {age}, was {charge:v} with {crime}[, {spokesperson} {say:v}].",
        "{suspect} is {age} years old and had no previous convictions, according to {spokesperson}.",
        "{suspect}, who is {age}, was taken to a police station for questioning.",
        "A judge set bail at ${bail} at a short hearing.",
        "Bail was set at ${bail}[ for {suspect}], and the suspect must surrender their passport.",
        "{spokesperson}, a police spokesperson, {say:v} the {core:n} followed a long investigation.",
        "The {core:n} took place on {time}, shortly after sunrise.",
        "Officers searched a house in {place} after the {core:n} and took away several boxes of documents.",
        "Around {officers} officers took part in the operation.",
    ),
    fillers=(
        "Neighbours said they were surprised by the news.",
        "The investigation is continuing.",
        "Police asked anyone with information to come forward.",
        "A lawyer for the suspect declined to comment.",
    ),
    comparison=Comparison("age", "suspect", "Who was older when arrested, {a} or {b}?",
                          "Was {a} older than {b} when arrested?"),
    bridge=Bridge("suspect", "birth_city", "In which city was the person arrested in {place} on suspicion of {crime} "
                                           "born?"),
)

TRIAL = EventType(
    name="trial verdict",
    title="Trial of {defendant}",
    roles=(
        person("defendant", "businessman", "the defendant"), person("judge", "judge", "the judge"),
        text("crime", "crime"), number("years", 2, 30), place(), TIME, number("fine", 10000, 2000000),
        number("witnesses", 3, 60),
    ),
    anchors=("defendant",),
    events=(Event("core", {"n": ("verdict", "conviction"), "v": ("convicted",),
                           "pass": ("convicted", "found guilty")}),
            Event("sentence", {"v": ("sentenced",), "n": ("sentence",)})),
    leads=(
        "{defendant} was {core:pass} of {crime}[ by a court in {place}][ on {time}] at the end of a long trial.",
        "[On {time}, ]a court in {place} {core:v} {defendant} of {crime}, rejecting the arguments of the defence.",
        "Jurors {core:v} {defendant}[ of {crime}][ on {time}] after deliberating for two days.",
    ),
    facts=(
        "{defendant} was {sentence:v} to {years} years in prison[ by {judge}, who called the crime serious].",
        "{judge} {sentence:v} {defendant} to {years} years and said there was no sign of remorse.",
        "The {core:n} came on {time}, after the jury had deliberated for two days.",
        "{judge}, who presided over the trial, {say:v} the evidence was overwhelming.",
        "The trial was held in {place} and drew large crowds every day.",
        "The charge was {crime}, which the defendant had always denied.",
        "The court also ordered {defendant} to pay a fine of ${fine} within six months.",
        "A fine of ${fine} was imposed on top of the prison term.",
        "The court heard from {witnesses} witnesses over the course of the trial.",
    ),
    fillers=(
        "Lawyers for the defence said they would appeal.",
        "The trial lasted several weeks.",
        "Relatives of the victims welcomed the {core:n}.",
        "The courtroom was full throughout the hearing.",
    ),
    comparison=Comparison("years", "defendant", "Who received the longer prison sentence, {a} or {b}?",
                          "Did {a} receive a longer prison sentence than {b}?"),
    bridge=Bridge("defendant", "birth_city", "In which city was the person sentenced by judge {judge} born?"),
)

ACQUISITION = EventType(
    name="acquisition",
    title="Acquisition of {target} by {acquirer}",
    roles=(
        org("acquirer", "company", "the company", "the buyer"), org("target", "company", "the company", "the firm"),
        number("price", 1.1, 48.0, 1), person("ceo", "chief executive", "the chief executive"),
        number("employees", 300, 40000), TIME, number("premium", 8, 60),
    ),
    anchors=("acquirer", "target"),
    events=(Event("core", {"n": ("acquisition", "deal", "purchase", "takeover"), "v": ("acquired", "bought"),
                           "inf": ("acquire", "buy")}),),
    leads=(
        "{acquirer} has agreed to {core:inf} {target}[ for ${price} billion], creating one of the largest groups "
        "in its industry.",
        "{acquirer} {announce:v}[ on {time}] that it had {core:v} {target}[ in a deal worth ${price} billion].",
        "[On {time}, ]{acquirer} {core:v} its rival {target}, ending months of talks between the two companies.",
    ),
    facts=(
        "The {core:n} values {target} at ${price} billion, including its debt.",
        "{acquirer} will pay ${price} billion in cash and shares[, {ceo} {say:v}].",
        "{ceo}, the chief executive of {acquirer}, {say:v} the {core:n} would help the company grow abroad.",
        "{target} employs about {employees} people in offices and factories around the world.",
        "The {core:n} was {announce:v} on {time}, before markets opened.",
        "{ceo} {say:v} none of the {employees} jobs at {target} were at risk.",
        "The price is {premium} percent above the value of {target} before the talks became public.",
        "Shareholders of the target will receive a premium of {premium} percent.",
    ),
    fillers=(
        "Shares of both companies rose in early trading.",
        "The {core:n} still needs approval from regulators.",
        "Analysts said the price was high.",
        "Competitors are expected to follow with deals of their own.",
    ),
    comparison=Comparison("price", "acquirer", "Which company paid more for its acquisition, {a} or {b}?",
                          "Did {a} pay more for its acquisition than {b}?"),
    bridge=Bridge("acquirer", "headquarters", "In which city is the company that acquired {target} headquartered?"),
)

PRODUCT_LAUNCH = EventType(
    name="product launch",
    title="{product}",
    roles=(
        org("company", "company", "the company"), thing("product", "product", "the device", "the new product"),
        text("category", "category"), number("price", 199, 2499), number("battery", 8, 40),
        person("designer", "product designer", "the designer"), place(), TIME,
    ),
    anchors=("company", "product"),
    events=(Event("core", {"n": ("launch", "unveiling"), "v": ("launched", "unveiled", "introduced")}),),
    leads=(
        "{company} {core:v} {product}[, its new {category},][ at an event in {place}][ on {time}], hoping to win "
        "back customers.",
        "[On {time}, ]{company} {core:v} {product}[ in {place}] in front of hundreds of journalists.",
        "{company} has {core:v} {product}[, priced at ${price}], the first new model in two years.",
    ),
    facts=(
        "{product} will cost ${price} when it goes on sale next month.",
        "The device will sell for ${price}[, {designer} {say:v}], less than most of its rivals.",
        "{designer}, who leads product design at {company}, {say:v} the device took three years to develop.",
        "The {core:n} took place in {place}[ on {time}] at a packed conference centre.",
        "The {core:n} was held on {time} and streamed live to viewers around the world.",
        "{product} is a {category} aimed at young professionals.",
        "It is the company's first {category} and comes in three colours.",
        "The company claims its battery lasts {battery} hours on a single charge.",
    ),
    fillers=(
        "Reviewers praised the design.",
        "Pre-orders open next week.",
        "Rival firms are expected to respond with their own devices.",
        "The {core:n} was widely discussed online.",
    ),
    comparison=Comparison("price", "product", "Which costs more at launch, {a} or {b}?",
                          "Does {a} cost more at launch than {b}?"),
    bridge=Bridge("company", "founded", "In what year was the company that launched {product} founded?"),
)

ELECTION = EventType(
    name="election win",
    title="{year} {place} mayoral election",
    roles=(
        person("winner", "politician", "the new mayor", "the mayor-elect"),
        person("opponent", "politician", "the incumbent", "the challenger"), place(), TIME,
        number("share", 51, 78), number("turnout", 30, 80), number("votes", 4000, 400000),
    ),
    anchors=("winner", "place"),
    events=(Event("core", {"n": ("victory", "win"), "v": ("won",), "elect": ("elected",)}),
            Event("defeat", {"v": ("defeated", "beat"), "ing": ("defeating", "beating")})),
    leads=(
        "{winner} {core:v} the race for mayor of {place}[ on {time}][, {defeat:ing} {opponent}] after a long "
        "and bitter campaign.",
        "{winner} was {core:elect} mayor of {place}[ on {time}][ with {share} percent of the vote].",
        "[On {time}, ]voters in {place} {core:elect} {winner} as their new mayor, promising change at city hall.",
    ),
    facts=(
        "{winner} {core:v} {share} percent of the vote[, {defeat:ing} {opponent}], according to official results.",
        "{winner} {defeat:v} {opponent}, who conceded late in the evening and congratulated the winner.",
        "{opponent} conceded shortly after midnight and thanked supporters for their work.",
        "Turnout was {turnout} percent, higher than at the last election.",
        "The vote was held on {time}, after a campaign dominated by housing and transport.",
        "{winner} received {votes} votes, the election commission {say:v}.",
        "In total, {votes} people voted for the new mayor.",
    ),
    fillers=(
        "Supporters celebrated in the main square.",
        "Counting continued late into the night.",
        "The new mayor will take office next month.",
        "Observers said the campaign had been unusually bitter.",
    ),
    comparison=Comparison("share", "winner", "Which candidate won a larger share of the vote, {a} or {b}?",
                          "Did {a} win a larger share of the vote than {b}?"),
    bridge=Bridge("winner", "birth_city", "In which city was the candidate who defeated {opponent} born?"),
)

TRANSFER = EventType(
    name="sports transfer",
    title="Transfer of {player} to {to_club}",
    roles=(
        person("player", "footballer", "the player", "the striker"), org("from_club", "club", "the former club"),
        org("to_club", "club", "the club", "the new club"), number("fee", 3, 120), number("years", 2, 6),
        number("age", 18, 33), number("goals", 4, 90), TIME,
    ),
    anchors=("player", "to_club"),
    events=(Event("core", {"n": ("transfer", "move", "signing"), "v": ("joined",), "sign": ("signed", "bought")}),),
    leads=(
        "{player} {core:v} {to_club}[ from {from_club}][ for {fee} million euros], one of the biggest deals "
        "of the summer.",
        "{to_club} completed the {core:n} of {player}[ from {from_club}][ on {time}] after weeks of talks.",
        "[On {time}, ]{to_club} {core:sign} {player}[ from {from_club}], strengthening their attack.",
    ),
    facts=(
        "The {core:n} fee was {fee} million euros, a record for the club.",
        "{to_club} paid {from_club} {fee} million euros, with further bonuses possible.",
        "{player} agreed a contract that runs for {years} years and passed a medical on arrival.",
        "At {age}, {player} is one of the most promising players in the league.",
        "{player} left {from_club} after four seasons and many important matches.",
        "The {core:n} was confirmed on {time} in a short statement on the club website.",
        "{player} scored {goals} goals in all competitions for the previous club.",
    ),
    fillers=(
        "Fans gathered outside the stadium to welcome the new arrival.",
        "The coach said the squad was now complete.",
        "The transfer window closes at the end of the month.",
        "Several other clubs had shown interest.",
    ),
    comparison=Comparison("fee", "player", "Which player moved for the higher fee, {a} or {b}?",
                          "Did {a} move for a higher fee than {b}?"),
    bridge=Bridge("player", "birth_city", "In which city was the player who moved from {from_club} to {to_club} born?"),
)

AWARD = EventType(
    name="award",
    title="{year} {award}",
    roles=(
        person("winner", "novelist", "the winner", "the author"), thing("award", "award", "the prize", "the award"),
        number("money", 10000, 1000000), number("nominees", 4, 12), place(), TIME,
    ),
    anchors=("winner", "award"),
    events=(Event("core", {"n": ("award", "honour"), "v": ("won", "received"), "pass": ("awarded",)}),
            Event("ceremony", {"n": ("ceremony", "gala")})),
    leads=(
        "{winner} has {core:v} {award}[, worth ${money}], one of the most respected prizes in literature.",
        "{winner} was {core:pass} {award}[ at a {ceremony:n} in {place}][ on {time}] for a novel about exile.",
        "[On {time}, ]{award} was {core:pass} to {winner}, to the surprise of many critics.",
    ),
    facts=(
        "{award} comes with ${money} in prize money and a bronze medal.",
        "The {core:n} carries ${money}, paid by a private foundation[, the organisers {say:v}].",
        "The {ceremony:n} was held in {place}[ on {time}] and attended by several hundred guests.",
        "{winner} received the prize at a {ceremony:n} on {time}, wearing a borrowed suit.",
        "{winner} {say:v} the {core:n} was a complete surprise and thanked the publisher.",
        "The jury had chosen from a shortlist of {nominees} writers.",
    ),
    fillers=(
        "Previous winners include several well-known figures.",
        "The jury praised the originality of the work.",
        "The shortlist was announced in the spring.",
        "Sales of the winning book rose sharply.",
    ),
    comparison=Comparison("money", "winner", "Which prize winner received more money, {a} or {b}?",
                          "Did {a} receive more prize money than {b}?"),
    bridge=Bridge("winner", "birth_city", "In which city was the winner of the {award} born?"),
)

RESIGNATION = EventType(
    name="resignation",
    title="Resignation of {leader}",
    roles=(
        person("leader", "business executive", "the executive"), org("organisation", "company", "the company"),
        text("position", "position"), number("years", 2, 25), TIME, number("loss", 20, 900),
        person("successor", "business executive", "the successor"),
    ),
    anchors=("leader", "organisation"),
    events=(Event("core", {"n": ("resignation", "departure"), "v": ("resigned", "stepped down", "quit")}),
            Event("appoint", {"v": ("appointed", "named")})),
    leads=(
        "{leader} has {core:v} as {position} of {organisation}[ after {years} years in the job], surprising "
        "investors.",
        "{leader} {core:v} as {position} of {organisation}[ on {time}] following months of pressure from "
        "shareholders.",
        "[On {time}, ]{organisation} {announce:v} that {leader} had {core:v}, effective immediately.",
    ),
    facts=(
        "{leader} had held the post of {position} for {years} years.",
        "{leader} had been in the job for {years} years and oversaw a period of rapid growth.",
        "{successor} was {appoint:v} to replace {leader} and will start work next week.",
        "{organisation} {say:v} {successor} would take over with immediate effect.",
        "The {core:n} was {announce:v} on {time} in a short statement to the stock exchange.",
        "{leader} served as {position} during a difficult period for the company.",
        "The company reported a loss of ${loss} million last year.",
        "The {core:n} follows an annual loss of ${loss} million.",
    ),
    fillers=(
        "Staff were told of the decision in an email.",
        "No reason was given for the {core:n}.",
        "The board thanked the outgoing leadership.",
        "Shares fell slightly after the {core:n}.",
    ),
    comparison=Comparison("years", "leader", "Who had held their post longer before resigning, {a} or {b}?",
                          "Had {a} held their post longer than {b} before resigning?"),
    bridge=Bridge("organisation", "founded", "In what year was the company from which {leader} resigned founded?"),
)

STRIKE = EventType(
    name="labour strike",
    title="{year} {company} strike",
    roles=(
        org("union", "union", "the union"), org("company", "company", "the company", "the employer"),
        number("workers", 300, 25000), number("raise", 3, 15), number("days", 2, 21),
        person("union_leader", "trade unionist", "the union leader"), place(), TIME,
    ),
    anchors=("company",),
    events=(Event("core", {"n": ("strike", "walkout"), "v": ("walked out", "went on strike")}),
            Event("demand", {"v": ("demanded",), "ing": ("demanding",)})),
    leads=(
        "About {workers} workers at {company} {core:v}[ on {time}][, {demand:ing} a pay rise of {raise} percent].",
        "{union} called a {core:n} at {company}[ in {place}][ on {time}] after talks with managers broke down.",
        "[On {time}, ]staff at {company} began a {core:n} over pay, bringing production to a halt.",
    ),
    facts=(
        "The union is {demand:ing} a {raise} percent pay rise to keep up with rising prices.",
        "{union} {demand:v} a pay rise of {raise} percent, more than the company has offered.",
        "{union_leader}[, who heads {union},] {say:v} members had run out of patience.",
        "{union_leader} {say:v} about {workers} workers had joined the {core:n} on its first day.",
        "Around {workers} workers took part in the {core:n}, according to the organisers.",
        "The {core:n} began on {time}, just before the start of the morning shift.",
        "Production has stopped at the plant in {place}, the largest site of the company.",
        "The {core:n} was organised by {union}, which represents most of the staff.",
        "The {core:n} is planned to last {days} days unless an agreement is reached.",
    ),
    fillers=(
        "Managers said talks would resume next week.",
        "Pickets gathered at the factory gates.",
        "Customers were warned to expect delays.",
        "It is the longest {core:n} at the site in a decade.",
    ),
    comparison=Comparison("workers", "union", "Which strike involved more workers, the one called by {a} or the one "
                                              "called by {b}?",
                          "Did the strike called by {a} involve more workers than the one called by {b}?"),
    bridge=Bridge("company", "headquarters", "In which city is the company hit by a strike called by {union} "
                                             "headquartered?"),
)

#: All event types, in label order (the classification labels are their names).
EVENT_TYPES: tuple[EventType, ...] = (
    EARTHQUAKE, FLOOD, FIRE, ARREST, TRIAL, ACQUISITION, PRODUCT_LAUNCH, ELECTION, TRANSFER, AWARD, RESIGNATION,
    STRIKE,
)
