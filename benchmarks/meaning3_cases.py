"""The round-3 everyday set (issue 52): short audit records for six kinds of meaning, used to measure judges, never
to tune them.

Same shape as the everyday set (``benchmarks.everyday_cases``): each record is a short everyday document (a gym's
plans, a council grant, a bus route, a clinic, a school, a product page, a match report, an HR policy, ...) and an
answer of one to three sentences, with the answer label and one claim label per answer sentence (each answer
sentence is a single claim for the rule decomposer; ``tests/benchmarks/test_meaning3_cases.py`` checks). The answer
label is the AND-join of the claim labels (Con > Nic > Ent), so a record whose answer holds one faithful and one
hallucinated sentence is contradicted or baseless.

The kinds:

- ``restriction``: the claim widens a set the context restricts (every member, anyone, all customers against a plan,
  an age, a condition), or states unconditionally what the context grants under a condition: contradicted.
- ``cross-negation``: the claim negates a requirement, check or fact that the context states in another sentence
  (often in other words) than the one the claim shares most words with: contradicted.
- ``number-form``: amounts in other surface forms (digits, words, scales, durations, fractions) are equal; bounds
  are read (at least, within, under); comparisons and gaps the numbers or dates imply are checked. Right by the
  numbers: entailed; wrong: contradicted.
- ``coordinated-swap``: the context pairs two things in one sentence (A in 2016, B in 2019) and the claim swaps the
  years, places, prices or roles between them: contradicted.
- ``modality``: may / can / might / is expected to / plans to against must / always / will / is guaranteed / has,
  both ways: contradicted; a faithful claim keeps the modality.
- ``absent-subject``: a short claim whose subject never appears in the context, or that adds a fact the context is
  silent about: baseless, not contradicted, even when its other words appear.

Every kind has at least 8 hallucinated records and at least 4 faithful look-alikes (same construction, supported by
the context). The records were written by hand from the meaning of the sentences, before and apart from any change
to the judges, not from any model's output; none copies the examples quoted in issue 52 or a record of the
everyday set. ``python3 -m benchmarks.everyday --set meaning3`` reports judges on them.
"""

from __future__ import annotations

from rt4chart.types import Label

from .everyday_cases import Everyday

E, C, N = Label.ENTAILED, Label.CONTRADICTED, Label.BASELESS

#: every kind the set covers
KINDS = ("restriction", "cross-negation", "number-form", "coordinated-swap", "modality", "absent-subject")


def _r(id: str, kind: str, context: str, answer: str, *claims: Label) -> Everyday:
    # the answer label is the AND-join of the claim labels (RT4CHART Eq. 4): Con > Nic > Ent
    label = C if C in claims else N if N in claims else E
    return Everyday(id, kind, context, answer, label, tuple(claims))


# shared contexts (several records read the same document)
GYM = ("Harbourside Gym offers free personal training sessions to members on the annual plan. Monthly members can "
       "book a session for 25 pounds. The gym is open from 6:00 to 22:00.")
ENERGY = ("Customers of Brightwater Energy who pay by direct debit receive a 5% discount on their bills. Bills are "
          "sent every quarter.")
LOUNGE = ("Access to the Skyline lounge at Terminal 2 is limited to business-class passengers and Gold cardholders. "
          "The lounge opens two hours before the first departure.")
GRANT = ("The council's home insulation grant is open only to households with an annual income below 30,000 pounds. "
         "Applications close on 31 January.")
SABBATICAL = ("Employees who have worked at Tanfield for at least two years can take a paid sabbatical of up to three "
              "months. Requests go to the HR team.")
FLU = ("The walk-in clinic on Ash Street offers flu vaccinations to patients aged 65 and over. Other patients need to "
       "book an appointment with their GP.")
CYCLEHIRE = ("The town's cycle hire scheme costs one pound per half hour. Riders need to register a payment card "
             "before their first ride, but no driving licence is asked for.")
FACTORY = ("The Marlow packaging factory opened in 2015 and employs 200 people. Health and safety officers visited "
           "the site in June 2025 and found no serious problems.")
COOKERY = ("The Saturday cookery class at Fennel & Thyme costs 45 pounds. It lasts 150 minutes, including a short "
           "break.")
FOOTBRIDGE = ("The footbridge over the Wendle closed for repairs on 2 September 2026. It reopened to walkers on "
              "16 September 2026.")
SCHOOLS = "Maple Street School was built in 1964 and Oak Lane School in 1978. Both schools were extended in 2010."
BIKES = ("The City bike costs 420 pounds and the Ranger costs 610 pounds. Both come with a two-year frame "
         "guarantee.")
CLUB = ("At the Dunford rowing club's annual meeting, Maria Costa was elected chair and Tom Reilly became treasurer. "
        "Forty members voted.")
SHIFTS = ("At the Corby warehouse, the early shift starts at 6:00 and the late shift at 14:00. Each shift is eight "
          "hours.")
CLINICS = "At Hawthorn Surgery, Dr Patel runs the Monday clinic and Dr Lewis the Thursday clinic."
DEPOT = ("Greystone council plans to build a new leisure centre on the site of the former bus depot. A public "
         "consultation starts in March.")
CUPFINAL = ("Around 40,000 tickets for the cup final go on sale on Monday. The match is expected to sell out within "
            "hours.")
PHONE = ("The maker said the Corvo X phone might receive the next major software update, but no date has been set. "
         "Older models will not.")
HILLTOP = "The Hilltop hotel has 40 rooms and a restaurant. It plans to open a spa next year."
CAFE = ("Lark Café serves breakfast from 8:00 to 11:30 and lunch until 15:00. Its menu includes vegan pancakes and a "
        "soup of the day.")
ROUTE12 = ("Route 12 buses run every 15 minutes on weekdays and every 30 minutes on Sundays. The route links the "
           "railway station with the General Hospital.")
CLIMBING = ("The Summit climbing wall is open until 22:00 on weekdays. Climbing shoes can be hired for three "
            "pounds.")
HEADPHONES = "The Aura 2 headphones have 30 hours of battery life and fold flat for travel."
ROVERS = "Kingsbridge Rovers beat Milton Athletic 3-0 on Sunday. Their captain, Sam Okoye, scored twice."


RECORDS: list[Everyday] = [
    # restriction: a restricted set widened, a condition dropped
    _r("m3-001", "restriction", GYM, "Every Harbourside Gym member gets free personal training sessions.", C),
    _r("m3-002", "restriction", ENERGY, "All Brightwater Energy customers get a 5% discount on their bills.", C),
    _r("m3-003", "restriction", "Pupils in years 10 and 11 at Elmwood School may leave the site at lunchtime. "
       "Younger pupils must stay on the school grounds.",
       "Any pupil at Elmwood School may leave the site at lunchtime.", C),
    _r("m3-004", "restriction", LOUNGE, "All passengers at Terminal 2 can use the Skyline lounge.", C),
    _r("m3-005", "restriction", GRANT, "Every household can apply for the council's home insulation grant.", C),
    _r("m3-006", "restriction", GRANT,
       "Applications for the home insulation grant close on 31 January. Any household may apply.", E, C),
    _r("m3-007", "restriction", SABBATICAL, "All Tanfield employees can take a paid sabbatical of up to three months.",
       C),
    _r("m3-008", "restriction", "Children under five travel free on Metro buses when an adult is with them. Older "
       "children pay half the adult fare.",
       "Children travel free on Metro buses.", C),
    _r("m3-009", "restriction", FLU, "The walk-in clinic on Ash Street gives flu vaccinations to every patient.", C),
    _r("m3-010", "restriction", GYM, "Members on the annual plan at Harbourside Gym get personal training sessions at "
       "no charge.", E),
    _r("m3-011", "restriction", SABBATICAL, "Staff with at least two years at Tanfield may take a paid sabbatical.", E),
    _r("m3-012", "restriction", FLU, "Patients aged 65 or older can get a flu vaccination at the Ash Street walk-in "
       "clinic.", E),
    _r("m3-013", "restriction", "All staff at Carden Hospital, part-time workers included, get free parking. Visitors "
       "pay two pounds an hour.",
       "Every member of staff at Carden Hospital parks for free.", E),
    _r("m3-014", "restriction", LOUNGE, "Gold cardholders can use the Skyline lounge. It opens two hours before the "
       "first flight leaves.", E, E),
    # cross-negation: a requirement, check or fact negated against another sentence
    _r("m3-015", "cross-negation", "The Dunmore footbridge was repainted in 2019. Engineers from the county checked "
       "its cables in October 2024 and found no faults.",
       "The Dunmore footbridge has not been checked since it was repainted in 2019.", C),
    _r("m3-016", "cross-negation", "A Northgate library card is free for residents. To borrow e-books, members must "
       "first register the card online. Registration takes about five minutes.",
       "Members can borrow e-books with a Northgate library card without registering it.", C),
    _r("m3-017", "cross-negation", "Entry to the Hallam half marathon costs 30 pounds. A place is confirmed only "
       "after the runner sends in a medical certificate. The race starts at 9:00 in Victoria Park.",
       "Runners can enter the Hallam half marathon for 30 pounds without a medical certificate.", C),
    _r("m3-018", "cross-negation", "Cobalt Bank's easy-access savings account pays 3% interest. The account can be "
       "opened only once the saver has passed an identity check. Withdrawals are free.",
       "Savers can open Cobalt Bank's easy-access account with no identity check.", C),
    _r("m3-019", "cross-negation", FACTORY, "The Marlow factory has not been inspected since it opened in 2015.", C),
    _r("m3-020", "cross-negation", "Tickets for the Year 6 play cost five pounds. Seats must be booked in advance, "
       "as the hall holds only 120 people. The play runs on Thursday and Friday evenings.",
       "Year 6 play tickets can be bought at the door without booking.", C),
    _r("m3-021", "cross-negation", "The Volta E2 comes with a five-year warranty. The warranty stays valid only if "
       "the car is serviced every year at an approved garage.",
       "The Volta E2's five-year warranty does not depend on servicing.", C),
    _r("m3-022", "cross-negation", "The restaurant on Ashby Road was given a top hygiene rating in 2021. Food "
       "inspectors returned in February 2025 and confirmed the rating.",
       "The Ashby Road restaurant has had no hygiene inspection since 2021.", C),
    _r("m3-023", "cross-negation", CYCLEHIRE,
       "Cycle hire in the town costs one pound per half hour. A payment card is not needed to ride.", E, C),
    _r("m3-024", "cross-negation", "The museum café is on the ground floor next to the shop. Visitors do not need a "
       "museum ticket to use it.",
       "Visitors can use the museum café without a ticket.", E),
    _r("m3-025", "cross-negation", "The Tolworth water tower was built in 1932. It has not been inspected since "
       "2018, and the council has asked for a survey.",
       "No inspection of the Tolworth water tower has taken place since 2018.", E),
    _r("m3-026", "cross-negation", "Membership of the Brockley chess club is free. Anyone can join; no rating or "
       "test is required.",
       "Joining the Brockley chess club does not require a rating.", E),
    _r("m3-027", "cross-negation", CYCLEHIRE, "Riders of the town's hire bikes do not need a driving licence.", E),
    # number-form: equal amounts in other forms, bounds, comparisons and gaps implied by numbers or dates
    _r("m3-028", "number-form", "Thornbury council will spend 3,200,000 pounds on road repairs this year. Work starts "
       "in April.",
       "Thornbury council's road repair budget for this year is 3.2 million pounds.", E),
    _r("m3-029", "number-form", COOKERY, "The Saturday cookery class at Fennel & Thyme lasts two and a half hours.", E),
    _r("m3-030", "number-form", "Tenants of Oakfield Homes must give 28 days' notice before moving out. The deposit "
       "is returned within ten days of the final inspection.",
       "Oakfield Homes tenants have to give four weeks' notice before they leave.", E),
    _r("m3-031", "number-form", "Twenty of the forty plots at the Ridgeway allotments went to first-time gardeners "
       "this year. The rest went to returning tenants.",
       "Half of the Ridgeway allotment plots went to first-time gardeners this year.", E),
    _r("m3-032", "number-form", "Replacement bank cards are sent out within 5 working days of a request. There is "
       "no charge for the first replacement.",
       "A replacement bank card is sent out in under two weeks.", E),
    _r("m3-033", "number-form", "The Zephyr kettle boils a litre of water in 3 minutes; the Breeze kettle takes 4 "
       "minutes.",
       "The Zephyr boils water faster than the Breeze.", E),
    _r("m3-034", "number-form", "A quarter of the 200 residents surveyed backed the new cycle lane on Hale Road. The "
       "survey ran for two weeks.",
       "Fifty of the residents surveyed supported the Hale Road cycle lane.", E),
    _r("m3-035", "number-form", "The Arden Line train to the coast takes 2 hours 10 minutes. The coach on the same "
       "route takes 3 hours.",
       "The coach to the coast is quicker than the Arden Line train.", C),
    _r("m3-036", "number-form", "Volunteers at the Hillside animal shelter must be at least 16 years old. Training "
       "takes one afternoon.",
       "Fourteen-year-olds can volunteer at the Hillside animal shelter.", C),
    _r("m3-037", "number-form", FOOTBRIDGE, "The footbridge over the Wendle reopened a week after it closed.", C),
    _r("m3-038", "number-form", "Hollis Books opened its Leeds shop in August 2018. Its Bristol shop opened in March "
       "2021.",
       "Hollis Books opened its Bristol shop before its Leeds shop.", C),
    _r("m3-039", "number-form", "The expansion of the Lindow stadium cost 1,800,000 euros. It added 2,000 seats.",
       "The expansion of the Lindow stadium cost 18 million euros.", C),
    _r("m3-040", "number-form", "Screen repairs for the Nova phone take at least ten working days. Customers get a "
       "loan phone in the meantime.",
       "Nova screen repairs are finished within a week.", C),
    _r("m3-041", "number-form", "The Alder hotel has 85 rooms and a rooftop bar. The Birch hotel, across the square, "
       "has 120 rooms.",
       "The Alder hotel has more rooms than the Birch hotel.", C),
    _r("m3-042", "number-form", "The museum's late opening on Thursdays runs from 18:00 to 21:00. Entry is free after "
       "18:00.",
       "The museum's Thursday late opening lasts four hours.", C),
    _r("m3-043", "number-form", COOKERY,
       "The cookery class at Fennel & Thyme costs 45 pounds. It lasts three and a half hours.", E, C),
    # coordinated-swap: years, places, prices or roles swapped between the two halves of one sentence
    _r("m3-044", "coordinated-swap", SCHOOLS, "Oak Lane School was built in 1964.", C),
    _r("m3-045", "coordinated-swap", BIKES, "The Ranger costs 420 pounds.", C),
    _r("m3-046", "coordinated-swap", "In the Elmbridge derby, Hartley scored the opening goal and Okafor the "
       "equaliser. The match ended 1-1.",
       "Okafor scored the opening goal in the Elmbridge derby.", C),
    _r("m3-047", "coordinated-swap", CLINICS, "Dr Lewis runs the Monday clinic at Hawthorn Surgery.", C),
    _r("m3-048", "coordinated-swap", "The Rowan Players are based in Dundee and the Birch Ensemble in Perth. Both "
       "companies tour in the summer.",
       "The Birch Ensemble is based in Dundee.", C),
    _r("m3-049", "coordinated-swap", CLUB, "Tom Reilly was elected chair of the Dunford rowing club.", C),
    _r("m3-050", "coordinated-swap", SHIFTS, "The late shift at the Corby warehouse starts at 6:00.", C),
    _r("m3-051", "coordinated-swap", "Tram line 3 runs to the airport and line 7 to the university. Both run every "
       "ten minutes.",
       "Tram line 7 serves the airport and line 3 the university.", C),
    _r("m3-052", "coordinated-swap", "The Granby branch of the credit union opened in 2016, the Fulwood branch in "
       "2019.",
       "The Fulwood branch of the credit union opened in 2016 and the Granby branch in 2019.", C),
    _r("m3-053", "coordinated-swap", CLINICS,
       "Dr Patel runs the Monday clinic at Hawthorn Surgery. Dr Patel also runs the Thursday clinic.", E, C),
    _r("m3-054", "coordinated-swap", SCHOOLS, "Oak Lane School dates from 1978.", E),
    _r("m3-055", "coordinated-swap", BIKES, "The Ranger is priced at 610 pounds, 190 pounds more than the City "
       "bike.", E),
    _r("m3-056", "coordinated-swap", CLUB, "Tom Reilly is the rowing club's new treasurer.", E),
    _r("m3-057", "coordinated-swap", SHIFTS,
       "The late shift at the Corby warehouse begins at 14:00 and the early one at 6:00.", E),
    _r("m3-058", "coordinated-swap", CLINICS, "Dr Patel is in charge of the Monday clinic at Hawthorn Surgery.", E),
    # modality: may / can / might / expected / plans against must / always / will / guaranteed / has, both ways
    _r("m3-059", "modality", "Refunds from Pellow Outdoor are usually issued within five days, but some can take up "
       "to two weeks. Items must be returned unused.",
       "Pellow Outdoor always issues refunds within five days.", C),
    _r("m3-060", "modality", DEPOT, "Greystone council has built a new leisure centre on the old bus depot site.", C),
    _r("m3-061", "modality", PHONE, "The Corvo X is guaranteed to receive the next major software update.", C),
    _r("m3-062", "modality", "Patients at Brook Lane Surgery can book appointments online or by phone. Repeat "
       "prescriptions are ready in two days.",
       "Patients at Brook Lane Surgery must book their appointments online.", C),
    _r("m3-063", "modality", CUPFINAL, "The cup final has sold out.", C),
    _r("m3-064", "modality", "Staff at Lindqvist may work from home on up to two days a week. Team meetings are held "
       "in the office on Tuesdays.",
       "Staff at Lindqvist must work from home two days a week.", C),
    _r("m3-065", "modality", HILLTOP, "The Hilltop hotel has a spa.", C),
    _r("m3-066", "modality", "Heavy rain might delay the opening of the Saturday market on Castle Square. Stalls "
       "usually open at 8:00.",
       "Heavy rain will delay the opening of the Saturday market on Castle Square.", C),
    _r("m3-067", "modality", "All visitors to the Kelso laboratory must sign in at reception and wear a badge. The "
       "laboratory is closed at weekends.",
       "Visitors to the Kelso laboratory may sign in at reception if they wish.", C),
    _r("m3-068", "modality", HILLTOP, "The Hilltop hotel has 40 rooms. Its spa is already open.", E, C),
    _r("m3-069", "modality", "Passengers on Vale Rail can bring a folding bike on board at no cost. Full-size bikes "
       "must be booked in advance.",
       "Vale Rail passengers may take a folding bike on board for free.", E),
    _r("m3-070", "modality", DEPOT,
       "Greystone council intends to build a leisure centre on the old bus depot site.", E),
    _r("m3-071", "modality", CUPFINAL, "Organisers expect the cup final to sell out.", E),
    _r("m3-072", "modality", PHONE, "According to its maker, the Corvo X may get the next major software update.", E),
    # absent-subject: a subject the context never mentions, or a fact the context is silent about
    _r("m3-073", "absent-subject", CAFE, "The bookshop next door sells vegan cookbooks.", N),
    _r("m3-074", "absent-subject", ROUTE12, "The tram runs every 15 minutes on weekdays.", N),
    _r("m3-075", "absent-subject", "Ferndale Primary has 310 pupils and 14 teachers. The school day starts at 8:45.",
       "The nursery has 14 teachers.", N),
    _r("m3-076", "absent-subject", CLIMBING, "The sauna is open until 22:00 on weekdays.", N),
    _r("m3-077", "absent-subject", CLIMBING, "The Summit climbing wall was opened by an Olympic climber.", N),
    _r("m3-078", "absent-subject", "Westford council collects recycling every other Tuesday. Garden waste is "
       "collected monthly from April to October.",
       "Westford council collects garden waste free of charge.", N),
    _r("m3-079", "absent-subject", "The Parkside dental practice is open Monday to Friday. Emergency appointments are "
       "kept free each morning.",
       "The practice's orthodontist works on Wednesdays.", N),
    _r("m3-080", "absent-subject", HEADPHONES, "The Aura 2 headphones are made in Denmark.", N),
    _r("m3-081", "absent-subject", ROVERS, "Milton Athletic's manager resigned after the match.", N),
    _r("m3-082", "absent-subject", CAFE, "Lark Café serves lunch until 15:00. It also runs cooking classes on "
       "Mondays.", E, N),
    _r("m3-083", "absent-subject", CAFE, "Lark Café's menu offers vegan pancakes.", E),
    _r("m3-084", "absent-subject", ROUTE12, "Buses on route 12 go between the railway station and the General "
       "Hospital.", E),
    _r("m3-085", "absent-subject", HEADPHONES, "The Aura 2 headphones fold flat.", E),
    _r("m3-086", "absent-subject", ROVERS, "Sam Okoye scored two goals for Kingsbridge Rovers on Sunday.", E),
]


def as_records() -> list[dict]:
    """The records in rt4chart's input shape: ``{"id", "context", "question": None, "answer"}``."""
    return [{"id": r.id, "context": r.context, "question": None, "answer": r.answer} for r in RECORDS]
