"""The assistant-style set (issue 61): audit records whose answers read like an LLM assistant's own words, used to
measure judges, never to tune them.

Same shape as the everyday set (``benchmarks.everyday_cases.Everyday``): each record is a short everyday document (a
dental practice, a ferry timetable, a museum, company results, a leisure centre, a recipe, a product page, an HR
leave policy, a pub, a flu clinic, a returns policy, a train, a council notice, a bakery, a match report, a pharmacy
leaflet, ...) and an answer in an assistant's phrasing (paraphrase, other word order, friendly openers), with the
answer label and one expected claim label per factual statement of the answer, in answer order. The answer label
is the AND-join of the claim labels (contradicted if any claim is contradicted, else baseless if any is baseless,
else entailed).

The kinds:

- ``citation-marker``: the answer cites passages with inline markers (``[1]``, ``[2][3]``, ``[1, 3]``, ``[^1]``,
  ``【1】``, ``(Source 2)``, a marker after the full stop); the context may be several passages in one string. The
  markers are no claims and never change a label; some markers carry the same digit as a number nearby.
- ``markdown``: the answer is a markdown table, a bullet list, ``##`` headings and bold or italic emphasis; every
  data row or bullet is a claim (header rows, separator rows and headings are not).
- ``particle-question``: a yes/no question is given and the answer opens with a particle ("Yes.", "No.", "Nope —",
  "Not quite.", "Correct.", "Sure!"); the particle answers the question, so it is a claim of its own, labelled by
  whether the context supports that answer.
- ``particle-bare``: answers that open with a particle ("Sure!", "Of course!", "Yes —", "No.") where there is no
  question or the question is not a yes/no question; the particle asserts nothing and is not counted as a claim.
- ``number-form``: amounts, units, dates and times in another form than the context's (number words, dozens,
  fractions, per cent, millions, "k", exact unit conversions, clock times in words, ISO dates against written
  dates). The same amount: entailed; another amount in a similar form: contradicted.
- ``derived``: the answer states a result computed from the context's amounts (a price difference, a sum, a count,
  a deadline, a rate times a quantity, years between two dates, which of two is earlier). Right arithmetic:
  entailed; a wrong result: contradicted.
- ``pronoun``: the context states the fact in a sentence that opens with a pronoun (It, They, She, He, These)
  standing for the subject of the sentence before it; the answer restates it with the noun (entailed) or states
  the opposite with the noun (contradicted).

Every kind has 10 records: 4 faithful look-alikes (entailed) and 6 hallucinated ones (contradicted or baseless).
The records were written by hand before the code change of issue 61, from the kinds and the labelling rules alone
(entailed: the context says so, in any words or number form; contradicted: the context says otherwise; baseless:
the context does not say and nothing in it contradicts the claim), without reading the judges' code and without
running any judge on them; none comes from a model's output. They measure; they are not to be tuned against.
"""

from __future__ import annotations

from typing import Optional

from rt4chart.types import Label

from .everyday_cases import Everyday

E, C, N = Label.ENTAILED, Label.CONTRADICTED, Label.BASELESS

#: every kind the set covers
KINDS = ("citation-marker", "markdown", "particle-question", "particle-bare", "number-form", "derived", "pronoun")


def _r(id: str, kind: str, context: str, question: Optional[str], answer: str, *claims: Label) -> Everyday:
    # the answer label is the AND-join of the claim labels: Con > Nic > Ent
    label = C if C in claims else N if N in claims else E
    return Everyday(id, kind, context, answer, label, tuple(claims), question)


# --- citation-marker contexts (several passages joined into one string) ---------------------------------------------
DENTAL = ("[1] Pinewood Dental is open Monday to Friday from 8:00 to 17:30.\n\n"
          "[2] New patients should arrive 15 minutes before their appointment to fill in a health form.\n\n"
          "[3] The practice accepts card payments only.")
FERRY = ("The Kelby ferry crosses to Marra Island in 40 minutes and sails four times a day.\n\n"
         "Return tickets cost £12 for adults and £6 for children.\n\n"
         "Bicycles travel free of charge.")
MUSEUM = ("Source 1: The Halden Museum of Textiles is open Tuesday to Sunday, from 10:00 to 17:00. "
          "Source 2: Entry is free for visitors under 18; adults pay 9 euros. "
          "Source 3: Guided tours start at 11:00 and 14:00.")
ORVALE = ("[1] Orvale Foods reported revenue of 48 million euros for 2024.\n\n"
          "[2] The company opened its second factory, in Lyon, in March 2024.\n\n"
          "[3] Revenue grew by 6% compared with 2023.")
BUS = ("Source 1: Route 14 buses leave Central Station every 20 minutes between 06:00 and 23:00.\n"
       "Source 2: On Sundays the service runs every 30 minutes.\n"
       "Source 3: A single fare costs 2.40 dollars.")

# --- markdown contexts --------------------------------------------------------------------------------------------
LEISURE = ("Brookside Leisure Centre runs yoga on Mondays at 18:00, spinning on Wednesdays at 19:00 and aqua aerobics "
           "on Fridays at 10:00. Each class lasts 45 minutes.")
SHORTBREAD = ("Lemon shortbread (makes 16 pieces): you need 200 g of butter, 100 g of caster sugar, 300 g of plain "
              "flour and the zest of one lemon. Bake at 160 °C for 25 minutes.")
WATCH = ("The Trailmate 2 hiking watch has a 1.3-inch display and built-in GPS. Its battery lasts 10 days. The watch "
         "weighs 52 grams and comes in black or olive.")
LEAVE = ("At Marlow & Finch, full-time staff get 25 days of annual leave, part-time staff get 15 days and interns get "
         "10 days. Up to 5 unused days can be carried over into the next year.")

# --- particle contexts --------------------------------------------------------------------------------------------
PUB = ("Dogs are welcome on the terrace of the Blue Heron pub but are not allowed in the dining room. Water bowls "
       "are available at the bar.")
FLU = ("The Ashgrove flu clinic runs on Saturday 12 October from 9:00 to 13:00. No appointment is needed. Please "
       "bring your NHS number if you have it.")
KESTREL = ("Items bought at Kestrel Outdoor can be returned within 30 days with a receipt. Sale items can only be "
           "exchanged, not refunded.")
COASTLINE = ("The 07:15 Coastline Express from Dunmore to Port Ellis stops at Carrow and Westby. The train has a "
             "buffet car and free Wi-Fi.")
GARDEN = ("Garden waste in the Elmford district is collected every other Tuesday from March to November. Bins must "
          "be at the kerb by 7:00 on collection day. The service costs 45 pounds a year.")
BAKERY = ("Crumb & Co. bakes sourdough every day and usually sells out by noon. The shop is closed on Mondays. "
          "Orders for birthday cakes need three days' notice.")
HARLOW = ("Harlow Town beat Eastbrook Rovers 3-0 on Saturday. Striker Dana Okafor scored twice for Harlow. The "
          "attendance was 2,150.")
TABLETS = ("Take one tablet twice a day with food. Do not take more than four tablets in 24 hours. Keep out of the "
           "reach of children.")

# --- number-form contexts -----------------------------------------------------------------------------------------
ORCHARD = "The Millbrook community orchard has 120 apple trees and 36 pear trees. It was planted in 2009."
VEGBOX = ("Each Greenleaf veg box holds 2 kg of potatoes, 500 g of carrots and six onions. Boxes are delivered every "
          "14 days.")
SMOOTHIE = "Blend 250 ml of oat milk with 1 banana and 150 g of frozen berries. Serves 2."
ROADWORKS = ("Bramley Road will be closed from 2025-04-07 to 2025-04-11 for resurfacing. Work starts each day at "
             "08:30 and finishes at 17:00.")
TESSARY = ("Tessary Software has 1,450,000 active users, and 35% of them pay for a subscription. The company employs "
           "2,000 people.")
FERNGATE = ("The Ferngate half marathon starts at 09:00. Runners have a time limit of 3 hours 30 minutes. Bag drop "
            "closes 90 minutes before the start. The entry fee is €38.")

# --- derived contexts ---------------------------------------------------------------------------------------------
DRILLS = ("At Hollis Hardware, the Vega cordless drill costs 89 pounds and the Vega Pro costs 124 pounds. Both come "
          "with a two-year warranty.")
POTTERY = ("The evening pottery course starts on Monday 3 February 2025 and runs for 8 weeks. There is one class a "
           "week, on Mondays from 19:00 to 21:00.")
BOATS = ("Canal boats at Wetherby Marina rent for 140 pounds a day. A refundable deposit of 200 pounds is taken at "
         "pick-up.")
NORRLAND = "Norrland Bikes was founded in 1987 by Ingrid Sahl. In 2012 the company moved its headquarters to Umeå."
CHOIR = "The Kinross Community Choir has 14 sopranos, 11 altos, 8 tenors and 9 basses."
FLIGHTS = ("Flight SK412 to Bergen departs at 14:50 and arrives at 16:05. Flight NX88 to Bergen departs at 15:20 and "
           "arrives at 16:25.")

# --- pronoun contexts ---------------------------------------------------------------------------------------------
POOL = ("The Linden Street swimming pool reopened in May after a refit. It is closed to the public on Wednesday "
        "mornings for school lessons.")
RIDGEWAY = ("Ridgeway hiking tours leave from the visitor centre at 8:00. They are not suitable for children under "
            "12. Walkers should bring water and sturdy boots.")
ESTRADA = "Dr Maya Estrada joined the Fairview Clinic in 2019. She sees patients only on Tuesdays and Thursdays."
OKORO = ("Mr Okoro is the head of year 9 at Belmont School. He is not available for parent meetings on Mondays. "
         "Meetings can be booked through the school office.")
SCOOTER = ("The Aurora 5 electric scooter has a range of 40 km. It must not be ridden in the rain because it is not "
           "waterproof.")
ALLOTMENTS = ("The Orchard Lane allotments were extended this spring. These may not be used for keeping animals or "
              "lighting bonfires.")
HARTWELL = "Hartwell Bank's basic account has no monthly fee. It does not include an overdraft."
SEASONAL = ("Seasonal workers at Copperfield Farms are hired from June to September. They are not eligible for the "
            "staff pension scheme.")


RECORDS: tuple[Everyday, ...] = (
    # ---------------------------------------------------------------------------------------- citation-marker
    _r("as-01", "citation-marker", DENTAL, "What do new patients need to know?",
       "New patients should turn up 15 minutes ahead of their appointment so they can complete a health form [2]. "
       "Payment is by card only [3].", E, E),
    _r("as-02", "citation-marker", FERRY, "How much are ferry tickets to Marra Island?",
       "A child's return ticket costs £2 [2]. Adults pay £12 for a return [2].", C, E),
    _r("as-03", "citation-marker", FERRY, "How long is the ferry crossing?",
       "The crossing to Marra Island takes 40 minutes. [1] You can bring your bike along at no extra cost. [3]", E, E),
    _r("as-04", "citation-marker", MUSEUM, "How much does the textile museum cost?",
       "Adults pay 9 euros to get in (Source 2). There's also a café on the top floor of the museum (Source 1).",
       E, N),
    _r("as-05", "citation-marker", MUSEUM, "When are the guided tours?",
       "Guided tours set off at 11:00 and at 15:00【3】. Visitors under 18 get in for free【2】.", C, E),
    _r("as-06", "citation-marker", MUSEUM, "When can I visit the museum?",
       "You can visit from Tuesday through Sunday, between 10 am and 5 pm [^1]. Anyone under 18 gets in free [^2].",
       E, E),
    _r("as-07", "citation-marker", ORVALE, "How did Orvale Foods do in 2024?",
       "Orvale Foods took in 48 million euros in 2024 [1]. That was 3% more than in 2023 [1, 3].", E, C),
    _r("as-08", "citation-marker", ORVALE, "Did Orvale grow last year?",
       "Orvale's revenue went up by 6% on 2023 [1][3]. It also opened a second factory, in Lyon [2].", E, E),
    _r("as-09", "citation-marker", ORVALE, None,
       "Orvale Foods opened its second factory in Lyon in March 2024 [2]. The new site employs 1,200 people [2].",
       E, N),
    _r("as-10", "citation-marker", BUS, "How often does the Route 14 bus run on Sundays?",
       "On Sundays a Route 14 bus leaves every 20 minutes (Source 2). A single ride costs $2.40 (Source 3).", C, E),
    # ---------------------------------------------------------------------------------------- markdown
    _r("as-11", "markdown", LEISURE, "What classes are on at Brookside and when?",
       "Here's the weekly timetable:\n\n"
       "| Class | Day | Time |\n"
       "|---|---|---|\n"
       "| Yoga | Monday | 18:00 |\n"
       "| Spinning | Wednesday | 19:00 |\n"
       "| Aqua aerobics | Friday | 10:00 |\n\n"
       "Every class runs for **45 minutes**.", E, E, E, E),
    _r("as-12", "markdown", LEISURE, "When are the classes at Brookside Leisure Centre?",
       "| Class | Day | Start |\n"
       "| --- | --- | --- |\n"
       "| Yoga | Monday | 18:00 |\n"
       "| Spinning | Thursday | 19:00 |\n"
       "| Aqua aerobics | Friday | 10:00 |", E, C, E),
    _r("as-13", "markdown", SHORTBREAD, "What do I need for the lemon shortbread?",
       "## Ingredients\n\n"
       "- **Butter:** 200 g\n"
       "- **Caster sugar:** 100 g\n"
       "- **Plain flour:** 300 g\n"
       "- **Lemon:** the zest of one\n\n"
       "## Baking\n\n"
       "Bake at *160 °C* for *25 minutes*.", E, E, E, E, E),
    _r("as-14", "markdown", SHORTBREAD, "How do I make the lemon shortbread?",
       "## You'll need\n\n"
       "- 200 g butter\n"
       "- 150 g caster sugar\n"
       "- 300 g plain flour\n\n"
       "Then bake it at **160 °C** for 25 minutes.", E, C, E, E),
    _r("as-15", "markdown", WATCH, "What are the Trailmate 2's specs?",
       "## Trailmate 2 at a glance\n\n"
       "- **Display:** 1.3 inches\n"
       "- **Battery:** 10 days\n"
       "- **Weight:** 52 g\n"
       "- **Water resistance:** 100 m", E, E, E, N),
    _r("as-16", "markdown", WATCH, "Can you summarise the Trailmate 2?",
       "| Feature | Detail |\n"
       "|---|---|\n"
       "| Display | 1.3-inch |\n"
       "| GPS | Built in |\n"
       "| Battery life | 10 days |\n"
       "| Colours | Black, olive |", E, E, E, E),
    _r("as-17", "markdown", WATCH, None,
       "Quick summary of the **Trailmate 2**:\n\n"
       "* The screen measures *1.3 inches*.\n"
       "* The watch weighs **25 grams**.\n"
       "* You can get it in black or olive.", E, C, E),
    _r("as-18", "markdown", LEAVE, "How much annual leave do Marlow & Finch staff get?",
       "## Annual leave by contract\n\n"
       "| Contract | Days of leave |\n"
       "| --- | --- |\n"
       "| Full-time | 25 |\n"
       "| Part-time | 15 |\n"
       "| Intern | 12 |\n\n"
       "You can carry over up to **5 days**.", E, E, C, E),
    _r("as-19", "markdown", LEAVE, "What's the leave allowance for each type of worker?",
       "| Worker | Leave (days) |\n"
       "|:---|---:|\n"
       "| Full-time | 25 |\n"
       "| Part-time | 15 |\n"
       "| Intern | 10 |\n"
       "| Contractor | 8 |", E, E, E, N),
    _r("as-20", "markdown", LEAVE, "How does annual leave work at Marlow & Finch?",
       "- *Full-time:* 25 days\n"
       "- *Part-time:* 15 days\n"
       "- *Interns:* 10 days\n\n"
       "**Carry-over:** up to five unused days can roll over into the next year.", E, E, E, E),
    # ---------------------------------------------------------------------------------------- particle-question
    _r("as-21", "particle-question", PUB, "Can I take my dog into the Blue Heron's dining room?",
       "No. Dogs are kept out of the dining room, though they're very welcome on the terrace.", E, E),
    _r("as-22", "particle-question", PUB, "Are dogs allowed in the dining room at the Blue Heron?",
       "Yes, dogs are welcome everywhere in the pub, the dining room included.", C, C),
    _r("as-23", "particle-question", FLU, "Do I need to book an appointment for the Ashgrove flu clinic?",
       "Nope — you can just walk in, no appointment necessary.", E, E),
    _r("as-24", "particle-question", FLU, "Is the Ashgrove flu clinic held on a Sunday?",
       "Yes. It takes place on Sunday 12 October.", C, C),
    _r("as-25", "particle-question", KESTREL,
       "Can I return something I bought at Kestrel Outdoor three weeks ago if I still have the receipt?",
       "Yes. You have 60 days to bring items back, as long as you have your receipt.", E, C),
    _r("as-26", "particle-question", KESTREL, "Can I get a refund on a sale item from Kestrel Outdoor?",
       "Not quite. Sale items can be swapped for something else. You can't get your money back on them, though.",
       E, E, E),
    _r("as-27", "particle-question", KESTREL, "Do sale items at Kestrel Outdoor get refunded?",
       "Sure! Sale items can be refunded within 30 days, just like everything else.", C, C),
    _r("as-28", "particle-question", COASTLINE, "Does the 07:15 from Dunmore have a quiet coach?",
       "Yes. There's a quiet coach at the front of the train.", N, N),
    _r("as-29", "particle-question", COASTLINE, "So the 07:15 Coastline Express stops at Westby, right?",
       "Correct. It calls at both Carrow and Westby on its way to Port Ellis.", E, E),
    _r("as-30", "particle-question", COASTLINE, "Is there Wi-Fi on the 07:15 Coastline Express?",
       "No. Unfortunately that service has no Wi-Fi. It does have a buffet car, though.", C, C, E),
    # ---------------------------------------------------------------------------------------- particle-bare
    _r("as-31", "particle-bare", GARDEN, "How often is garden waste collected in Elmford?",
       "Sure! Garden waste gets picked up every second Tuesday between March and November.", E),
    _r("as-32", "particle-bare", GARDEN, "What time do the garden waste bins need to be out?",
       "Sure! Just make sure your bin is at the kerb by 8 am on collection day.", C),
    _r("as-33", "particle-bare", GARDEN, None,
       "Yes — the Elmford garden waste service costs 45 pounds a year. You can pay it in monthly instalments.",
       E, N),
    _r("as-34", "particle-bare", BAKERY, "What should I know about ordering a birthday cake from Crumb & Co.?",
       "Of course! Birthday cakes need to be ordered at least three days in advance.", E),
    _r("as-35", "particle-bare", BAKERY, None,
       "No. Crumb & Co. is open every day of the week, Mondays included.", C),
    _r("as-36", "particle-bare", HARLOW, None,
       "Sure thing. Harlow Town won 3-0 against Eastbrook Rovers on Saturday. Dana Okafor got a hat-trick.", E, C),
    _r("as-37", "particle-bare", HARLOW, "Who scored for Harlow Town?",
       "Yes! Dana Okafor found the net twice for Harlow.", E),
    _r("as-38", "particle-bare", HARLOW, "How many people came to the match?",
       "No worries! About 2,150 fans watched the game. Tickets were priced at 12 pounds.", E, N),
    _r("as-39", "particle-bare", TABLETS, "How should I take these tablets?",
       "No problem! Take one tablet two times a day alongside a meal. Never go over four tablets in 24 hours.", E, E),
    _r("as-40", "particle-bare", TABLETS, "What's the maximum dose?",
       "Yes, the most you should take is six tablets in any 24-hour period.", C),
    # ---------------------------------------------------------------------------------------- number-form
    _r("as-41", "number-form", ORCHARD, "How many trees does the Millbrook orchard have?",
       "There are a hundred and twenty apple trees in the Millbrook orchard. There are also three dozen pear trees.",
       E, E),
    _r("as-42", "number-form", VEGBOX, "What comes in a Greenleaf veg box?",
       "Every box comes with 2,000 g of potatoes. You also get half a kilo of carrots. Deliveries arrive once a week.",
       E, E, C),
    _r("as-43", "number-form", SMOOTHIE, "What goes into the smoothie?",
       "You'll need a quarter of a litre of oat milk. Add one banana and 150 grams of frozen berries.", E, E),
    _r("as-44", "number-form", SMOOTHIE, "How much oat milk do I use?",
       "Use half a litre of oat milk. Throw in 0.15 kg of frozen berries too.", C, E),
    _r("as-45", "number-form", ROADWORKS, "When is Bramley Road closed?",
       "Bramley Road is shut from 7 April to 11 April 2025. Crews start at half past eight in the morning. They "
       "finish at 5 pm.", E, E, E),
    _r("as-46", "number-form", ROADWORKS, "What are the working hours on Bramley Road?",
       "The closure runs from April 7th to April 11th, 2025. Work kicks off at half past nine each morning.", E, C),
    _r("as-47", "number-form", ROADWORKS, "When does the Bramley Road closure start?",
       "Bramley Road closes on 7 May 2025. Work stops at five in the afternoon each day.", C, E),
    _r("as-48", "number-form", TESSARY, "How big is Tessary Software?",
       "Tessary has 1.45 million active users. Thirty-five per cent of them pay for a subscription. The company "
       "has a 2k-strong workforce.", E, E, E),
    _r("as-49", "number-form", TESSARY, "How many Tessary users pay?",
       "Tessary has 1.45m active users. A quarter of them pay for a subscription.", E, C),
    _r("as-50", "number-form", FERNGATE, "What are the key details of the Ferngate half marathon?",
       "You've got three and a half hours to finish. Bag drop closes an hour before the start. Entry costs "
       "thirty-eight euros.", E, C, E),
    # ---------------------------------------------------------------------------------------- derived
    _r("as-51", "derived", DRILLS, "How much more is the Vega Pro?",
       "The Vega Pro costs 35 pounds more than the standard Vega drill.", E),
    _r("as-52", "derived", DRILLS, "What would both drills cost together?",
       "Buying both Vega drills together would set you back 203 pounds.", C),
    _r("as-53", "derived", POTTERY, "How many hours of teaching does the pottery course give?",
       "With one two-hour class a week for eight weeks, that's 16 hours of teaching in total.", E),
    _r("as-54", "derived", POTTERY, "When does the pottery course end?",
       "The final class of the pottery course falls on Monday 31 March 2025.", C),
    _r("as-55", "derived", BOATS, "How much would three days on a canal boat cost?",
       "Three days of hire would come to 420 pounds. On top of that there's a 200-pound deposit that you get back.",
       E, E),
    _r("as-56", "derived", BOATS, "What would a four-day rental cost?",
       "A four-day rental works out at 580 pounds, not counting the deposit.", C),
    _r("as-57", "derived", NORRLAND, "How long after its founding did Norrland Bikes move to Umeå?",
       "The move to Umeå came 25 years after Norrland Bikes was set up.", E),
    _r("as-58", "derived", CHOIR, "How many singers are in the Kinross choir?",
       "Altogether the Kinross Community Choir has 44 singers.", C),
    _r("as-59", "derived", FLIGHTS, "Which flight gets to Bergen first?",
       "The NX88 reaches Bergen before the SK412 does.", C),
    _r("as-60", "derived", FLIGHTS, "How long is the SK412 flight?",
       "The SK412 flight to Bergen lasts an hour and a half.", C),
    # ---------------------------------------------------------------------------------------- pronoun
    _r("as-61", "pronoun", POOL, "Can I swim at Linden Street on a Wednesday morning?",
       "The Linden Street pool isn't open to the public on Wednesday mornings, when school lessons use it.", E),
    _r("as-62", "pronoun", POOL, "Is the Linden Street pool open on Wednesday mornings?",
       "The Linden Street pool is open to the public on Wednesday mornings.", C),
    _r("as-63", "pronoun", RIDGEWAY, "Can my 9-year-old come on a Ridgeway tour?",
       "The Ridgeway hiking tours aren't suitable for children under twelve.", E),
    _r("as-64", "pronoun", RIDGEWAY, "Are the Ridgeway tours OK for kids?",
       "The Ridgeway hiking tours are suitable for children of all ages.", C),
    _r("as-65", "pronoun", ESTRADA, "Which days does Dr Estrada work?",
       "Dr Estrada sees patients on Tuesdays and Thursdays only.", E),
    _r("as-66", "pronoun", OKORO, "Can I meet Mr Okoro on a Monday?",
       "Mr Okoro is available for parent meetings on Mondays.", C),
    _r("as-67", "pronoun", SCOOTER, "Can I ride the Aurora 5 in wet weather?",
       "The Aurora 5 scooter is fine to ride in the rain.", C),
    _r("as-68", "pronoun", ALLOTMENTS, "Can I keep chickens on the Orchard Lane allotments?",
       "The Orchard Lane allotments can't be used for keeping animals.", E),
    _r("as-69", "pronoun", HARTWELL, "Does the Hartwell basic account come with an overdraft?",
       "Hartwell Bank's basic account comes with an overdraft.", C),
    _r("as-70", "pronoun", SEASONAL, "Do seasonal workers at Copperfield get a pension?",
       "Seasonal workers at Copperfield Farms can join the staff pension scheme.", C),
)
