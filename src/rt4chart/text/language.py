"""The language a text is written in, from its script and its commonest words: enough to tell English from the
languages a RAG answer is most often written in, with no model and no download.

``language(text)`` is an ISO 639-1 code: ``zh``, ``ja``, ``ko``, ``ru``, ``ar``, ``he``, ``el``, ``th``, ``hi`` by
script; for Latin script, the language whose stopwords ``STOPWORDS`` holds the most of the text's words (``en`` on a
tie or when the text has too few of them to tell). ``NAMES`` gives each code's English name.
"""

from __future__ import annotations

import re
from functools import lru_cache

NAMES = {"en": "English", "de": "German", "fr": "French", "es": "Spanish", "it": "Italian", "pt": "Portuguese",
         "nl": "Dutch", "sv": "Swedish", "pl": "Polish", "tr": "Turkish", "zh": "Chinese", "ja": "Japanese",
         "ko": "Korean", "ru": "Russian", "ar": "Arabic", "he": "Hebrew", "el": "Greek", "th": "Thai", "hi": "Hindi"}

#: the commonest function words of each Latin-script language (articles, pronouns, prepositions, auxiliaries)
STOPWORDS = {
    "en": "the a an and or of to in on at for with is are was were be been it this that these those you your we our "
          "they their he she his her not no can will would should may must have has had do does did from by as but if "
          "than then there here which who what when where how all any some more most also only",
    "de": "der die das den dem des ein eine einen einem einer und oder ist sind war waren nicht kein keine mit von zu "
          "im in am auf für ich du sie er es wir ihr ihre sein seine auch nur noch aber wenn dass bei nach aus wird "
          "werden kann können muss müssen hat haben ja nein geöffnet montags kostet",
    "fr": "le la les un une des et ou est sont était pas ne ni avec de du au aux en dans sur pour je tu il elle nous "
          "vous ils elles son sa ses leur leurs aussi mais si que qui quand où peut doit ont a été oui non ce cette",
    "es": "el la los las un una unos unas y o es son era está están no con de del al en por para yo tú él ella "
          "nosotros ustedes ellos su sus también pero si que quien cuando donde puede debe ha han sí este esta",
    "it": "il lo la i gli le un una e o è sono era non con di del della al in per io tu lui lei noi voi loro suo sua "
          "anche ma se che chi quando dove può deve ha hanno sì questo questa",
    "pt": "o a os as um uma e ou é são era não com de do da dos das no na em por para eu tu ele ela nós eles seu sua "
          "também mas se que quem quando onde pode deve tem têm sim este esta",
    "nl": "de het een en of is zijn was waren niet geen met van te in op voor ik jij hij zij wij ook maar als dat die "
          "wie wanneer waar kan moet heeft hebben ja nee deze dit",
}
_WORDS = {code: frozenset(words.split()) for code, words in STOPWORDS.items()}
_SCRIPTS = (("zh", r"[\u4e00-\u9fff]"), ("ja", r"[\u3040-\u30ff]"), ("ko", r"[\uac00-\ud7af]"),
            ("ru", r"[\u0400-\u04ff]"), ("ar", r"[\u0600-\u06ff]"), ("he", r"[\u0590-\u05ff]"),
            ("el", r"[\u0370-\u03ff]"), ("th", r"[\u0e00-\u0e7f]"), ("hi", r"[\u0900-\u097f]"))
#: a Latin-script text needs this many stopwords of one language, and more than of English, to be read as it
_MIN_HITS = 2


@lru_cache(maxsize=1024)
def language(text: str) -> str:
    """The ISO 639-1 code of the language ``text`` is written in (``en`` when it cannot tell)."""
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return "en"
    for code, pattern in _SCRIPTS:
        if len(re.findall(pattern, text)) >= max(2, len(letters) // 4):
            return "ja" if code == "zh" and re.search(r"[\u3040-\u30ff]", text) else code
    words = re.findall(r"[^\W\d_]+", text.lower())
    hits = {code: sum(w in vocab for w in words) for code, vocab in _WORDS.items()}
    best = max(hits, key=lambda c: (hits[c], c == "en"))
    return best if best != "en" and hits[best] >= _MIN_HITS and hits[best] > hits["en"] else "en"
