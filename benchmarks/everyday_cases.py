"""The everyday set: short, single-fact audit records (issues 40 and 41), used to measure judges, never to tune them.

Each record is a short everyday document (a library's opening hours, a bank's ID rules, a football result, a product
page, a company news item, a recipe, a travel notice, ...) and an answer of one or two sentences, with the answer
label and one claim label per answer sentence (each answer sentence is a single claim for the rule decomposer;
``tests/benchmarks/test_everyday_cases.py`` checks). Contradicted: the context says otherwise; baseless: the context
does not say; entailed: the context says so, often in other words (digits for words, other units or date formats,
synonyms, the passive).

The records were written by hand from the meaning of the sentences, not from any model's output, and none copies the
examples in issue 41's table. ``benchmarks/everyday.py`` reports judges on them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from rt4chart.types import Label

E, C, N = Label.ENTAILED, Label.CONTRADICTED, Label.BASELESS

#: every kind the set covers
KINDS = ("antonym", "negation", "number", "unit-date", "quantifier", "role-swap", "entity-swap", "entity-absent",
         "comparison", "temporal", "modality", "short-baseless", "addition", "paraphrase", "multi-claim")


@dataclass(frozen=True)
class Everyday:
    """One record: ``claims`` holds the expected claim labels in answer order (one per answer sentence)."""

    id: str
    kind: str
    context: str
    answer: str
    label: Label
    claims: tuple[Label, ...]
    #: the question the answer replies to (None: the record has none)
    question: Optional[str] = None


# shared contexts (several records read the same document)
LIBRARY = ("Greenfield Public Library is open from 9:00 to 18:00 on weekdays. On Saturdays it opens at 10:00 and "
           "closes at 13:00. The library is closed on Sundays and public holidays.")
BANK = ("To open an account at Westbank, customers must bring a valid photo ID and proof of address. Accounts can be "
        "opened at any branch.")
SHARES = ("Shares of Norvik Shipping fell 8% on Tuesday after the company cut its profit forecast. Analysts blamed "
          "weaker demand in Asia.")
MATCH = ("Riverside FC lost 2-1 to Castleton United on Saturday. Castleton scored the winning goal in the 88th "
         "minute.")
COUNCIL = ("The city council rejected the plan for a new car park on Mill Street. Councillors said the site should "
           "stay a green space.")
HOTEL = "The hotel does not allow pets. Guide dogs are the only exception."
MUSEUM = "The museum's audio guide is included in the ticket price. It is available in six languages."
OAKRIDGE = ("Members of the Oakridge Library can borrow up to eight books at a time. Loans last three weeks and can be "
            "renewed twice online.")
MARATHON = ("The Lakeside marathon had 12,400 finishers this year, a record. The fastest runner finished in 2 hours 9 "
            "minutes.")
WATER = "Brookvale's new water plant can treat 2.5 million litres a day. It cost 40 million pounds to build."
RECIPE = ("The recipe serves four people. You need 300 grams of flour, two eggs and half a litre of milk. Whisk "
          "everything together and leave the batter to rest.")
CONFERENCE = "The conference takes place on 14 May 2027 in Lisbon. Registration closes on 30 April 2027."
TRAIL = "The hiking trail is 12 kilometres long and climbs 600 metres. It starts behind the village church."
BAKERY = "A new bakery has opened on Station Road. It sells bread, pastries and coffee from 7:00 every morning."
RECALL = ("Kestrel Motors recalled 15,000 cars because of a faulty brake sensor. Owners will be contacted by "
          "letter.")
ACQUISITION = ("In 2024, Harbor Foods bought the bakery chain Crumb & Co for 90 million dollars. Crumb & Co's founders "
               "stayed on as advisers.")
ROOMS = ("The Standard room costs 95 pounds a night and the Deluxe room costs 140 pounds a night. Every room has a "
         "view of the park.")
FERRY = "The ferry to Isla Verde leaves the harbour every two hours from 8:00. The crossing takes 45 minutes."
PARK = "Dogs may enter the park but must be kept on a lead. Cycling is allowed on the main path only."
TOUR = ("The walking tour of the old town starts at the cathedral at 10:00. It is led by a local historian and lasts "
        "two hours.")


def _r(id: str, kind: str, context: str, answer: str, *claims: Label) -> Everyday:
    # the answer label is the AND-join of the claim labels (RT4CHART Eq. 4): Con > Nic > Ent
    label = C if C in claims else N if N in claims else E
    return Everyday(id, kind, context, answer, label, tuple(claims))


RECORDS: list[Everyday] = [
    # antonyms
    _r("ev-001", "antonym", LIBRARY, "Greenfield Public Library is open on public holidays.", C),
    _r("ev-002", "antonym", SHARES, "Shares of Norvik Shipping rose on Tuesday.", C),
    _r("ev-003", "antonym", MATCH, "Riverside FC won their match against Castleton United on Saturday.", C),
    _r("ev-004", "antonym", COUNCIL, "The city council approved the car park plan for Mill Street.", C),
    _r("ev-005", "antonym", "The Alpine Express departs from platform 4 at 07:15. First-class seats are wide, and the "
       "carriages are quiet.",
       "The carriages on the Alpine Express are noisy.", C),
    _r("ev-006", "antonym", "The Harbour Café's new menu is cheap: no dish costs more than six euros. Portions are "
       "large.",
       "Portions at the Harbour Café are small.", C),
    # negation inserted or deleted
    _r("ev-007", "negation", BANK, "Westbank does not ask for proof of address when opening an account.", C),
    _r("ev-008", "negation", HOTEL, "Pets are allowed at the hotel.", C),
    _r("ev-009", "negation", MUSEUM, "The audio guide is not included in the ticket price.", C),
    _r("ev-010", "negation", "Flight BA217 did not land in Boston as planned; it was diverted to New York because of "
       "fog. Passengers were taken on to Boston by bus.",
       "Flight BA217 landed in Boston as planned.", C),
    _r("ev-011", "negation", "The swimming pool never closes for lunch. Lessons for children take place on Wednesday "
       "afternoons.",
       "The swimming pool closes for lunch.", C),
    _r("ev-012", "negation", "Smoking is prohibited anywhere on the campus, including the car parks. Staff who see a "
       "smoker should inform security.",
       "Smoking is permitted in the campus car parks.", C),
    _r("ev-013", "negation", "The app works without an internet connection once the maps are downloaded. Downloading "
       "the maps of one country takes a few minutes.",
       "Once its maps are downloaded, the app does not need an internet connection.", E),
    # numbers as digits and as words
    _r("ev-014", "number", OAKRIDGE, "Members can renew a loan five times online.", C),
    _r("ev-015", "number", OAKRIDGE, "A member may borrow as many as 8 books at once.", E),
    _r("ev-016", "number", MARATHON, "The Lakeside marathon had 1,240 finishers this year.", C),
    _r("ev-017", "number", WATER, "The plant treats 2,500,000 litres of water per day.", E),
    _r("ev-018", "number", "The school has twenty-four classrooms, a library and a gym. It was renovated last year.",
       "The school has 42 classrooms.", C),
    _r("ev-019", "number", "The band played for ninety minutes, then came back for two encores. The concert hall was "
       "sold out.",
       "The band played for 90 minutes before two encores.", E),
    _r("ev-020", "number", RECIPE, "The recipe needs three eggs.", C),
    _r("ev-021", "number", "The company employs about 1,200 people in Spain and 300 in Portugal. Its head office is "
       "in Madrid.",
       "The company employs roughly twelve hundred people in Spain.", E),
    # units and dates written differently
    _r("ev-022", "unit-date", "Refunds are processed within 72 hours of the returned item reaching our warehouse. "
       "Items must be unused.",
       "Refunds are processed within three days of the item reaching the warehouse.", E),
    _r("ev-023", "unit-date", CONFERENCE, "The conference will be held in Lisbon on May 14, 2027.", E),
    _r("ev-024", "unit-date", CONFERENCE, "Registration for the conference closes on May 3, 2027.", C),
    _r("ev-025", "unit-date", TRAIL, "The hiking trail is 12 miles long.", C),
    _r("ev-026", "unit-date", "The parcel weighs 2 kilograms and will arrive within a week. A signature is needed on "
       "delivery.",
       "The parcel weighs 2,000 grams.", E),
    _r("ev-027", "unit-date", "The film runs for two and a half hours, including a short intermission. It is shown in "
       "the original language with subtitles.",
       "The film lasts 150 minutes, intermission included.", E),
    _r("ev-028", "unit-date", "The warranty covers the vacuum cleaner for 24 months from the date of purchase. Keep "
       "the receipt as proof of the date.",
       "The vacuum cleaner's warranty lasts three years.", C),
    _r("ev-029", "unit-date", "The maritime museum was opened to the public on 1 July 1998. Its collection includes "
       "over 300 model ships.",
       "The maritime museum opened to the public in July 1998.", E),
    # quantifiers
    _r("ev-030", "quantifier", "Some of the 200 customers surveyed said delivery was too slow, but most had no "
       "complaint about delivery. The survey was carried out in June.",
       "All of the customers surveyed said delivery was too slow.", C),
    _r("ev-031", "quantifier", "Only the ground floor of the gallery is accessible by wheelchair; the upper floors "
       "can be reached by stairs only. The gallery is free to enter.",
       "Every floor of the gallery is wheelchair accessible.", C),
    _r("ev-032", "quantifier", "The number 7 bus usually leaves on time, but on market days it can be up to twenty "
       "minutes late. Market days are Tuesday and Saturday.",
       "The number 7 bus always leaves on time.", C),
    _r("ev-033", "quantifier", "Every room in the guesthouse has a private bathroom and free Wi-Fi. The guesthouse is "
       "a ten-minute walk from the beach.",
       "All of the guesthouse's rooms come with their own bathroom.", E),
    _r("ev-034", "quantifier", "Free delivery applies only to orders over 50 dollars. Smaller orders pay a flat fee "
       "of 5 dollars.",
       "All orders are delivered for free.", C),
    _r("ev-035", "quantifier", "None of the three candidates for the post had managed a team before. The interviews "
       "took place over two days.",
       "One of the candidates had previous experience managing a team.", C),
    _r("ev-036", "quantifier", "Two of the five new stores are in Leeds; the other three are in Manchester. All five "
       "open in October.",
       "Most of the new stores are in Leeds.", C),
    # swapped roles
    _r("ev-037", "role-swap", ACQUISITION, "Crumb & Co bought Harbor Foods in 2024.", C),
    _r("ev-038", "role-swap", "Priya Shah sold her apartment to David Lindqvist last spring. The price was not "
       "disclosed.",
       "David Lindqvist sold his apartment to Priya Shah.", C),
    _r("ev-039", "role-swap", "In the final minute, the home team's goalkeeper saved a penalty taken by the visiting "
       "captain. The match ended goalless.",
       "The visiting captain saved a penalty taken by the home team's goalkeeper.", C),
    _r("ev-040", "role-swap", "Northwind Airlines will lease six aircraft from SkyCapital starting in March. The "
       "planes will fly routes to southern Europe.",
       "SkyCapital will lease six aircraft from Northwind Airlines.", C),
    _r("ev-041", "role-swap", "Lena Fischer replaced Omar Haddad as head coach of the club in January. The club "
       "finished fourth last season.",
       "Omar Haddad replaced Lena Fischer as head coach.", C),
    _r("ev-042", "role-swap", "Elena Moreau interviewed the prime minister for the evening news. The interview lasted "
       "twenty minutes.",
       "The prime minister was interviewed by Elena Moreau for the evening news.", E),
    # an entity swapped for another one from the context
    _r("ev-043", "entity-swap", "The basic plan costs 8 euros a month and the family plan costs 15 euros a month. "
       "Both include unlimited streaming.",
       "The family plan costs 8 euros a month.", C),
    _r("ev-044", "entity-swap", "Sofia Lind heads the finance department, and Tomas Novak heads the legal department. "
       "Both report to the chief executive.",
       "Tomas Novak heads the finance department.", C),
    _r("ev-045", "entity-swap", "The festival's opening concert is in Granada; the closing concert is in Seville. "
       "Tickets go on sale in March.",
       "The festival's closing concert takes place in Granada.", C),
    _r("ev-046", "entity-swap", "The gold medal went to Kenya's Amos Kiprono, with Ethiopia's Haile Tesfaye taking "
       "silver. The race was run in heavy rain.",
       "Haile Tesfaye won the gold medal.", C),
    _r("ev-047", "entity-swap", "The library's main branch is on King Street. Its children's branch is on Elm Road.",
       "The library's main branch is on Elm Road.", C),
    _r("ev-048", "entity-swap", "The new phone comes in black and silver. The black model has 128 GB of storage, "
       "while the silver model has 256 GB.",
       "The black model has 256 GB of storage.", C),
    # an entity the context does not name
    _r("ev-049", "entity-absent", TOUR, "The walking tour is led by the historian Maria Costa.", N),
    _r("ev-050", "entity-absent", BAKERY, "The bakery on Station Road is owned by Jonas Weber.", N),
    _r("ev-051", "entity-absent", RECALL, "The faulty brake sensors were made by Valtronic.", N),
    _r("ev-052", "entity-absent", "The pop-up market will return next summer, the organisers said. Around forty "
       "stalls took part this year.",
       "The pop-up market will return to Dublin next summer.", N),
    _r("ev-053", "entity-absent", "The award for best debut novel went to a first-time author from Cork. The prize "
       "comes with 10,000 euros.",
       "The award for best debut novel went to Siobhan Kelly.", N),
    # comparisons read against numbers
    _r("ev-054", "comparison", "The northern route is 280 km long and the coastal route is 365 km long. Both routes "
       "end in the harbour town.",
       "The coastal route is shorter than the northern route.", C),
    _r("ev-055", "comparison", ROOMS, "The Deluxe room is more expensive than the Standard room.", E),
    _r("ev-056", "comparison", "The old model's battery lasted 10 hours; the new model's battery lasts 14 hours. The "
       "new model is also lighter.",
       "The new model's battery lasts less time than the old model's.", C),
    _r("ev-057", "comparison", "Tickets bought online cost 12 dollars, while tickets at the door cost 15 dollars. "
       "Children under five go free.",
       "Buying a ticket online is cheaper than buying one at the door.", E),
    _r("ev-058", "comparison", "Mount Arlen is 2,140 metres high, while its neighbour Mount Brisk is 1,980 metres "
       "high. A cable car runs to the top of Mount Arlen.",
       "Mount Brisk is higher than Mount Arlen.", C),
    _r("ev-059", "comparison", "Last year the town had 18,500 residents; this year it has 19,200. Most of the "
       "newcomers are young families.",
       "The town's population has grown since last year.", E),
    # temporal order
    _r("ev-060", "temporal", "Kai finished his apprenticeship in 2015 and opened his own garage in 2019. The garage "
       "repairs vans and cars.",
       "Kai opened his garage before finishing his apprenticeship.", C),
    _r("ev-061", "temporal", "Boarding begins 40 minutes before departure, and the gate closes 15 minutes before "
       "departure. Please have your passport ready.",
       "The gate closes before boarding begins.", C),
    _r("ev-062", "temporal", "First fry the onions until golden, then add the tomatoes and simmer for twenty minutes. "
       "Season with salt and pepper before serving.",
       "The tomatoes go in after the onions have been fried.", E),
    _r("ev-063", "temporal", "The company moved its headquarters to Rotterdam in 2012, three years after it was "
       "listed on the stock exchange. It now employs 4,000 people.",
       "The company was listed on the stock exchange after its move to Rotterdam.", C),
    _r("ev-064", "temporal", "The renovation of the town hall will start in September, once the summer festival is "
       "over. The work is expected to take a year.",
       "The renovation of the town hall will begin before the summer festival.", C),
    _r("ev-065", "temporal", "The singer released her debut album in 2008. Her second album followed in 2011.",
       "Her second album came out three years after her first.", E),
    # modality
    _r("ev-066", "modality", "Visitors may take photographs in the gardens. Flash photography is not allowed inside "
       "the palace.",
       "Visitors must not take photographs in the gardens.", C),
    _r("ev-067", "modality", "Helmets are optional on the beginner course, although riders may borrow one at the "
       "desk. The course takes about an hour.",
       "Riders must wear a helmet on the beginner course.", C),
    _r("ev-068", "modality", "All passengers must show their boarding pass at the gate. Boarding starts 30 minutes "
       "before departure.",
       "Passengers may skip showing their boarding pass at the gate.", C),
    _r("ev-069", "modality", "Students must submit the essay by Friday at noon. Late essays will not be marked.",
       "Students are required to hand in the essay by midday on Friday.", E),
    _r("ev-070", "modality", PARK, "Dogs are allowed to run off the lead in the park.", C),
    # short claims the context says nothing about
    _r("ev-071", "short-baseless", LIBRARY, "The library was built in 1954.", N),
    _r("ev-072", "short-baseless", BANK, "Westbank has 300 branches.", N),
    _r("ev-073", "short-baseless", MATCH, "Riverside FC's stadium holds 20,000 fans.", N),
    _r("ev-074", "short-baseless", RECIPE, "The dish takes an hour to bake.", N),
    _r("ev-075", "short-baseless", RECALL, "Kestrel Motors is based in Germany.", N),
    _r("ev-076", "short-baseless", HOTEL, "Breakfast is served until 10:00.", N),
    # a supported claim with an unsupported addition
    _r("ev-077", "addition", SHARES, "Shares of Norvik Shipping fell 8% on Tuesday, their worst day in ten years.", N),
    _r("ev-078", "addition", BAKERY, "The bakery on Station Road sells bread, pastries and coffee at half price.", N),
    _r("ev-079", "addition", MUSEUM, "The audio guide, narrated by a famous actor, is available in six languages.", N),
    _r("ev-080", "addition", FERRY, "The ferry to Isla Verde, which has a café on board, leaves every two hours.", N),
    _r("ev-081", "addition", WATER,
       "Brookvale's new water plant, built by a Swiss firm, can treat 2.5 million litres a day.", N),
    _r("ev-082", "addition", CONFERENCE,
       "The conference in Lisbon on 14 May 2027 is expected to draw 5,000 visitors.", N),
    # faithful paraphrases
    _r("ev-083", "paraphrase", LIBRARY, "On Saturdays, Greenfield Public Library shuts at one in the afternoon.", E),
    _r("ev-084", "paraphrase", BANK, "You need a valid photo identity document to open a Westbank account.", E),
    _r("ev-085", "paraphrase", MATCH, "Castleton United beat Riverside FC with a late goal.", E),
    _r("ev-086", "paraphrase", COUNCIL, "Councillors want the Mill Street site to remain green space.", E),
    _r("ev-087", "paraphrase", HOTEL, "The hotel bans pets, with the exception of guide dogs.", E),
    _r("ev-088", "paraphrase", RECALL, "Kestrel Motors will write to the owners of the recalled cars.", E),
    _r("ev-089", "paraphrase", ACQUISITION, "Harbor Foods acquired Crumb & Co in 2024.", E),
    _r("ev-090", "paraphrase", MARATHON, "A record number of runners finished the Lakeside marathon this year.", E),
    _r("ev-091", "paraphrase", FERRY, "It takes three quarters of an hour to cross to Isla Verde by ferry.", E),
    _r("ev-092", "paraphrase", PARK, "Dogs are allowed in the park provided they stay on a lead.", E),
    # two sentences, one claim each
    _r("ev-093", "multi-claim", LIBRARY,
       "Greenfield Public Library is closed on Sundays. On weekdays it opens at 8:00.", E, C),
    _r("ev-094", "multi-claim", BANK,
       "Westbank accepts new accounts at any of its branches. Customers must also bring a recent utility bill.", E, N),
    _r("ev-095", "multi-claim", SHARES,
       "Norvik Shipping lowered its profit forecast. Analysts pointed to stronger demand in Asia.", E, C),
    _r("ev-096", "multi-claim", OAKRIDGE,
       "Loans from Oakridge Library last three weeks. Members can borrow up to 12 books at a time.", E, C),
    _r("ev-097", "multi-claim", RECIPE, "The recipe is for four people. It calls for one litre of milk.", E, C),
    _r("ev-098", "multi-claim", CONFERENCE,
       "Registration for the conference closes on 30 April 2027. The event is free to attend.", E, N),
    _r("ev-099", "multi-claim", ACQUISITION,
       "The founders of Crumb & Co left the company after the sale. Harbor Foods paid 90 million dollars for "
       "the chain.", C, E),
    _r("ev-100", "multi-claim", TRAIL, "The hiking trail climbs 600 metres. It is twelve kilometres long.", E, E),
    _r("ev-101", "multi-claim", ROOMS,
       "A Deluxe room costs 140 pounds a night. Breakfast is included in the price.", E, N),
]


def as_records() -> list[dict]:
    """The records in rt4chart's input shape: ``{"id", "context", "question": None, "answer"}``."""
    return [{"id": r.id, "context": r.context, "question": None, "answer": r.answer} for r in RECORDS]
