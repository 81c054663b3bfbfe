"""The words of the query–key geometry and embedding neighbours view (page and figures), in English, Japanese and
Korean. Keys starting with "fig-" are the figures' (figures.words.t), the others the page's."""

from __future__ import annotations

GEOMETRY_TEXTS: dict[str, dict[str, str]] = {
    # ------------------------------------------------------------ the page
    "tab-geometry": {"en": "Queries, keys, neighbours", "ja": "クエリ・キー・近傍", "ko": "쿼리, 키, 이웃"},
    "explain-geometry": {
        "en": "A head scores a key by the dot product of its query with the key. Here one head's queries (circles) "
        "and keys (diamonds) are drawn in the plane that keeps most of their spread (the first two principal "
        "components); a line joins each query to the key it gives the most weight. Queries that land near the same "
        "keys look for the same thing. The layer is the page's; the head is the page's (head 0 when it shows the "
        "mean). Below: the embedding that encoder, decoder and output share puts English and German pieces in one "
        "space; for each source piece, its nearest pieces by cosine, where a German translation often shows up.",
        "ja": "ヘッドはクエリとキーの内積でキーに点数をつけます。ここでは 1 つのヘッドのクエリ (丸) とキー "
        "(ひし形) を、ばらつきを最もよく残す平面 (第 1・第 2 主成分) に描き、各クエリから最も重みを与えるキーへ"
        "線を引きます。同じキーの近くに来るクエリは同じものを探しています。層はページで選んだもの、ヘッドも"
        "ページで選んだもの (平均のときはヘッド 0) です。下は、エンコーダ・デコーダ・出力で共有する埋め込みが"
        "英語とドイツ語のピースを同じ空間に置く様子です。ソースの各ピースについてコサイン類似度で最も近い"
        "ピースを示します。ドイツ語の訳語がよく現れます。",
        "ko": "헤드는 쿼리와 키의 내적으로 키에 점수를 매깁니다. 여기서는 한 헤드의 쿼리(원)와 키(마름모)를 "
        "퍼짐을 가장 많이 남기는 평면(첫째·둘째 주성분)에 그리고, 각 쿼리에서 가장 큰 가중치를 주는 키로 선을 "
        "긋습니다. 같은 키 근처에 모이는 쿼리는 같은 것을 찾고 있습니다. 층은 페이지에서 고른 것, 헤드도 "
        "페이지에서 고른 것(평균일 때는 헤드 0)입니다. 아래는 인코더·디코더·출력이 함께 쓰는 임베딩이 영어와 "
        "독일어 조각을 한 공간에 두는 모습입니다. 소스의 각 조각마다 코사인 유사도로 가장 가까운 조각을 "
        "보여 주며, 독일어 번역어가 자주 나타납니다.",
    },
    "geometry-kind": {"en": "Attention", "ja": "アテンション", "ko": "어텐션"},
    # ------------------------------------------------------------ the figures
    "fig-geometry-title": {
        "en": "{kind} · layer {layer} · {head}: queries and keys in their first two principal components",
        "ja": "{kind} · 層 {layer} · {head}: 第 1・第 2 主成分で見たクエリとキー",
        "ko": "{kind} · 층 {layer} · {head}: 첫째·둘째 주성분으로 본 쿼리와 키",
    },
    "fig-pc-axis": {
        "en": "principal component {n} ({share:.0f}% of the spread)",
        "ja": "第 {n} 主成分 (ばらつきの {share:.0f}%)",
        "ko": "제{n}주성분 (퍼짐의 {share:.0f}%)",
    },
    "fig-queries": {"en": "queries", "ja": "クエリ", "ko": "쿼리"},
    "fig-keys": {"en": "keys", "ja": "キー", "ko": "키"},
    "fig-strongest-key": {
        "en": "query → its strongest key",
        "ja": "クエリ → 最も重みを与えるキー",
        "ko": "쿼리 → 가장 큰 가중치의 키",
    },
    "fig-neighbours-title": {
        "en": "Nearest pieces in the shared embedding (cosine, top {k})",
        "ja": "共有埋め込みで最も近いピース (コサイン類似度、上位 {k})",
        "ko": "공유 임베딩에서 가장 가까운 조각 (코사인 유사도, 상위 {k})",
    },
    "fig-neighbour-rank": {"en": "#{n}", "ja": "{n} 位", "ko": "{n}위"},
    "fig-neighbours-axis": {"en": "nearest first", "ja": "近い順", "ko": "가까운 순"},
    "fig-source-piece": {"en": "source piece", "ja": "ソースのピース", "ko": "소스 조각"},
}
