"""The letters the local word index folds and PostgreSQL's parser does not.

FTS5's ``unicode61`` tokenizer (``remove_diacritics 2``) reads "Bürgeramt" as burgeramt and "CAFÉ" as
cafe, so a question typed without its accents finds it; PostgreSQL's parser keeps the accents, and in a
database whose locale is C lowercases ASCII alone ("Über" stayed "Über", which "über" does not find). The
shared index reads each doc and each question with these letters as the local index has them (schema
version 7): a push sends a doc's folded text beside it when folding changes it (the docs' ``folded``),
which the ``tsvector`` is made of, and a question is folded as it is read. Since version 8 the folded
text also has the words the local index finds inside a run of Chinese, Japanese or Korean apart
("用Docker部署" as 用 Docker 部署), and full-width letters and digits as ASCII.

:data:`PAIRS` is what SQLite 3.40's ``unicode61`` with ``remove_diacritics 2`` makes of each letter of
Latin-1, Latin Extended-A and -B, Greek, Cyrillic and Latin Extended Additional (U+00C0-U+024F,
U+0370-U+04FF, U+1E00-U+1EFF) where that differs from the letter: 759 letters, each followed by
what it is read as (lower case, without its diacritics). Written out, not computed at run time, as
:mod:`~hermes_trail.fleet.separators` is, for the same reasons; ``tests/test_fleet.py`` checks that the
local word index reads each so.
"""

from __future__ import annotations

import functools

from hermes_trail.index import cjk

PAIRS = """
ÀaÁaÂaÃaÄaÅaÆæÇcÈeÉeÊeËeÌiÍiÎiÏiÐðÑnÒoÓoÔoÕoÖoØøÙuÚuÛuÜuÝyÞþàaáaâaãaäaåaçcèeéeêeëeìiíiîiïiñnòoóoôoõo
öoùuúuûuüuýyÿyĀaāaĂaăaĄaąaĆcćcĈcĉcĊcċcČcčcĎdďdĐđĒeēeĔeĕeĖeėeĘeęeĚeěeĜgĝgĞgğgĠgġgĢgģgĤhĥhĦħĨiĩiĪiīiĬi
ĭiĮiįiİiĲĳĴjĵjĶkķkĹlĺlĻlļlĽlľlĿŀŁłŃnńnŅnņnŇnňnŊŋŌoōoŎoŏoŐoőoŒœŔrŕrŖrŗrŘrřrŚsśsŜsŝsŞsşsŠsšsŢtţtŤtťtŦŧ
ŨuũuŪuūuŬuŭuŮuůuŰuűuŲuųuŴwŵwŶyŷyŸyŹzźzŻzżzŽzžzſsƁɓƂƃƄƅƆɔƇƈƉɖƊɗƋƌƎǝƏəƐɛƑƒƓɠƔɣƖɩƗɨƘƙƜɯƝɲƟɵƠoơoƢƣƤƥƦʀƧƨ
ƩʃƬƭƮʈƯuưuƱʊƲʋƳƴƵƶƷʒƸƹƼƽǄǆǅǆǇǉǈǉǊǌǋǌǍaǎaǏiǐiǑoǒoǓuǔuǕuǖuǗuǘuǙuǚuǛuǜuǞaǟaǠǡǢǣǤǥǦgǧgǨkǩkǪoǫoǬoǭoǮǯǰjǱǳ
ǲǳǴgǵgǶƕǷƿǸnǹnǺaǻaǼǽǾǿȀaȁaȂaȃaȄeȅeȆeȇeȈiȉiȊiȋiȌoȍoȎoȏoȐrȑrȒrȓrȔuȕuȖuȗuȘsșsȚtțtȜȝȞhȟhȠƞȢȣȤȥȦaȧaȨeȩeȪo
ȫoȬoȭoȮoȯoȰoȱoȲyȳyȺⱥȻȼȽƚȾⱦɁɂɃƀɄʉɅʌɆɇɈɉɊɋɌɍɎɏͰͱͲͳͶͷΆάΈέΉήΊίΌόΎύΏώΑαΒβΓγΔδΕεΖζΗηΘθΙιΚκΛλΜμΝνΞξΟοΠπΡρΣσ
ΤτΥυΦφΧχΨψΩωΪϊΫϋςσϏϗϐβϑθϕφϖπϘϙϚϛϜϝϞϟϠϡϢϣϤϥϦϧϨϩϪϫϬϭϮϯϰκϱρϴθϵεϷϸϹϲϺϻϽͻϾͼϿͽЀѐЁёЂђЃѓЄєЅѕІіЇїЈјЉљЊњЋћЌќЍѝ
ЎўЏџАаБбВвГгДдЕеЖжЗзИиЙйКкЛлМмНнОоПпРрСсТтУуФфХхЦцЧчШшЩщЪъЫыЬьЭэЮюЯяѠѡѢѣѤѥѦѧѨѩѪѫѬѭѮѯѰѱѲѳѴѵѶѷѸѹѺѻѼѽѾѿ
ҀҁҊҋҌҍҎҏҐґҒғҔҕҖҗҘҙҚқҜҝҞҟҠҡҢңҤҥҦҧҨҩҪҫҬҭҮүҰұҲҳҴҵҶҷҸҹҺһҼҽҾҿӀӏӁӂӃӄӅӆӇӈӉӊӋӌӍӎӐӑӒӓӔӕӖӗӘәӚӛӜӝӞӟӠӡӢӣӤӥӦӧӨөӪӫ
ӬӭӮӯӰӱӲӳӴӵӶӷӸӹӺӻӼӽӾӿḀaḁaḂbḃbḄbḅbḆbḇbḈcḉcḊdḋdḌdḍdḎdḏdḐdḑdḒdḓdḔeḕeḖeḗeḘeḙeḚeḛeḜeḝeḞfḟfḠgḡgḢhḣhḤhḥhḦhḧh
ḨhḩhḪhḫhḬiḭiḮiḯiḰkḱkḲkḳkḴkḵkḶlḷlḸlḹlḺlḻlḼlḽlḾmḿmṀmṁmṂmṃmṄnṅnṆnṇnṈnṉnṊnṋnṌoṍoṎoṏoṐoṑoṒoṓoṔpṕpṖpṗpṘrṙr
ṚrṛrṜrṝrṞrṟrṠsṡsṢsṣsṤsṥsṦsṧsṨsṩsṪtṫtṬtṭtṮtṯtṰtṱtṲuṳuṴuṵuṶuṷuṸuṹuṺuṻuṼvṽvṾvṿvẀwẁwẂwẃwẄwẅwẆwẇwẈwẉwẊxẋx
ẌxẍxẎyẏyẐzẑzẒzẓzẔzẕzẖhẗtẘwẙyẛsẞßẠaạaẢaảaẤaấaẦaầaẨaẩaẪaẫaẬaậaẮaắaẰaằaẲaẳaẴaẵaẶaặaẸeẹeẺeẻeẼeẽeẾeếeỀeềe
ỂeểeỄeễeỆeệeỈiỉiỊiịiỌoọoỎoỏoỐoốoỒoồoỔoổoỖoỗoỘoộoỚoớoỜoờoỞoởoỠoỡoỢoợoỤuụuỦuủuỨuứuỪuừuỬuửuỮuữuỰuựuỲyỳy
ỴyỵyỶyỷyỸyỹyỺỻỼỽỾỿ
"""

# The ranges the letters are in, as a bracket expression of PostgreSQL's regular expressions: a doc with
# none of them is not folded.
REGEX_CLASS = "[\u00c0-\u024f\u0370-\u04ff\u1e00-\u1eff]"


@functools.cache
def table() -> dict[int, str]:
    """A :meth:`str.translate` table of :data:`PAIRS`."""
    letters = "".join(PAIRS.split())
    return {ord(letters[i]): letters[i + 1] for i in range(0, len(letters), 2)}


def fold(text: str) -> str:
    """``text`` with its letters as the local word index reads them (ASCII text as it is), and its words
    apart as it reads them (schema version 8, :func:`~hermes_trail.index.cjk.spaced`: full-width letters
    and digits as ASCII, a word of another script inside a run of Chinese, Japanese or Korean a word of
    its own); Arabic's and Hebrew's vowel points left out, as the local word index drops them (schema
    version 10), and the Indic marks as written (:func:`~hermes_trail.index.cjk.marks_back`: PostgreSQL's
    parser keeps them inside a word, where the local index needs them read as other characters)."""
    return text if text.isascii() else cjk.marks_back(cjk.spaced(text.translate(table())))


def _title_letters() -> tuple[str, str]:
    """What a title's letters are read as (``index.plan.folded_title``): :data:`PAIRS`, and the letters the
    word indexes read as the ASCII letter typed for them (``cjk.UNFOLDED``: Turkish ı as i, since schema
    version 9), so "baglanti" finds a title "Bağlantı sorunu"; each letter, and what it is read as."""
    letters = "".join(PAIRS.split())
    return letters[0::2] + cjk.UNFOLDED, letters[1::2] + cjk.FOLDED


@functools.cache
def title_table() -> dict[int, int]:
    """A :meth:`str.translate` table of :func:`_title_letters`."""
    return str.maketrans(*_title_letters())


@functools.cache
def translate_sql(column: str) -> str:
    """``column`` with its letters read as :func:`title_table` reads them, as SQL (``translate`` of literal
    strings, so an index of the expression serves it): the shared index's titles read as the local index
    reads its own (``index.plan.folded_title``), so "muller" finds "Termin bei Müller"."""
    source, target = _title_letters()
    assert "'" not in source + target
    # Arabic's and Hebrew's points after the letters, with none to read them as: translate() drops them
    # (schema version 10), as ``index.plan.folded_title`` does.
    return f"translate({column}, '{source}{''.join(cjk.points())}', '{target}')"
