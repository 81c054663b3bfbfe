"""The words of the logit lens view (app/tabs/beyond_lens.py, figures/lens.py), in English, Japanese and Korean.

Page keys as in page.py; figure keys start with "fig-" (figures.words.t looks them up without it).
"""

from __future__ import annotations

LENS_TEXTS: dict[str, dict[str, str]] = {
    "tab-logit-lens": {"en": "Logit lens", "ja": "ロジットレンズ", "ko": "로짓 렌즈"},
    "explain-logit-lens": {
        "en": "What would the decoder say if it stopped here? At every step (column) each point of its residual "
        "stream (row: the embedding, then after each sublayer) is sent through what follows the last layer: the "
        "final LayerNorm, where the model has one, and the output projection that shares its weights with the "
        "embedding. A cell shows the most probable piece there; its colour is the probability of the token the "
        "model finally chose. Below, each sublayer's **direct contribution** to that token's logit: the change it "
        "made to the stream (the difference of two consecutive points) times the chosen token's output row, "
        "through the final norm with its scale frozen at the last point's value. The contributions and a constant "
        "(the norm's and the projection's biases) add up exactly to the logit. In a post-LN model every sublayer "
        "has its own LayerNorm after the add, so its contribution includes what that norm changed.",
        "ja": "デコーダがここで止まったら何と言うでしょうか。各ステップ (列) で、残差ストリームの各点 (行: 埋め込み、"
        "そして各サブレイヤーの後) を最終層の後ろにある処理に通します。モデルにあれば最後の LayerNorm、そして埋め込みと"
        "重みを共有する出力射影です。マスにはそこでいちばん確率の高いピースを書き、色は最終的に選ばれたトークンの確率です。"
        "下の図は、そのトークンのロジットへの各サブレイヤーの**直接の寄与**です。サブレイヤーがストリームに加えた変化"
        " (隣り合う 2 点の差) に選ばれたトークンの出力行を掛けたもので、最後の LayerNorm のスケールは最後の点の値に"
        "固定します。寄与と定数 (LayerNorm と射影のバイアス) の合計はロジットにぴったり一致します。post-LN のモデルでは"
        "各サブレイヤーの加算の後に専用の LayerNorm があるので、寄与にはその正規化による変化も含まれます。",
        "ko": "디코더가 여기서 멈춘다면 무엇을 말할까요? 각 단계 (열) 에서 잔차 스트림의 각 지점 (행: 임베딩, 그리고 "
        "각 서브레이어 뒤) 을 마지막 층 뒤의 처리에 통과시킵니다. 모델에 있으면 마지막 LayerNorm, 그리고 임베딩과 "
        "가중치를 공유하는 출력 사영입니다. 칸에는 그 지점에서 확률이 가장 높은 조각을 쓰고, 색은 모델이 최종적으로 "
        "고른 토큰의 확률입니다. 아래 그림은 그 토큰의 로짓에 대한 각 서브레이어의 **직접 기여**입니다. 서브레이어가 "
        "스트림에 더한 변화 (이웃한 두 지점의 차) 에 고른 토큰의 출력 행을 곱한 값으로, 마지막 LayerNorm 의 스케일은 "
        "마지막 지점의 값으로 고정합니다. 기여와 상수 (LayerNorm 과 사영의 편향) 를 더하면 로짓과 정확히 같습니다. "
        "post-LN 모델에서는 서브레이어마다 더하기 뒤에 자기 LayerNorm 이 있으므로, 기여에는 그 정규화가 바꾼 것도 "
        "들어 있습니다.",
    },
    "fig-lens-title": {
        "en": "Logit lens: every residual point of the decoder through {norm} and the output projection",
        "ja": "ロジットレンズ: デコーダの残差ストリームの各点を{norm}と出力射影に通す",
        "ko": "로짓 렌즈: 디코더 잔차 스트림의 각 지점을 {norm}와 출력 사영에 통과",
    },
    "fig-lens-with-norm": {"en": "the final LayerNorm", "ja": "最後の LayerNorm", "ko": "마지막 LayerNorm"},
    "fig-lens-without-norm": {
        "en": "no final norm (post-LN)",
        "ja": "最後の正規化なし (post-LN)",
        "ko": "마지막 정규화 없이 (post-LN)",
    },
    "fig-lens-top-panel": {
        "en": "text: the most probable piece · colour: p(token finally chosen)",
        "ja": "文字: いちばん確率の高いピース · 色: p(最終的に選ばれたトークン)",
        "ko": "글자: 확률이 가장 높은 조각 · 색: p(최종적으로 고른 토큰)",
    },
    "fig-lens-contribution-panel": {
        "en": "each point's direct contribution to the chosen token's logit ({norm}, σ frozen)",
        "ja": "選ばれたトークンのロジットへの各点の直接の寄与 ({norm}、σ 固定)",
        "ko": "고른 토큰의 로짓에 대한 각 지점의 직접 기여 ({norm}, σ 고정)",
    },
    "fig-lens-embed": {"en": "embed", "ja": "埋め込み", "ko": "임베딩"},
    "fig-lens-self": {"en": "self-attn", "ja": "自己注意", "ko": "셀프 어텐션"},
    "fig-lens-cross": {"en": "cross-attn", "ja": "クロス注意", "ko": "크로스 어텐션"},
    "fig-lens-ffn": {"en": "FFN", "ja": "FFN", "ko": "FFN"},
    "fig-lens-step-axis": {
        "en": "step: the token chosen there",
        "ja": "ステップ: そこで選ばれたトークン",
        "ko": "단계: 거기서 고른 토큰",
    },
    "fig-lens-point-axis": {"en": "residual point", "ja": "残差の点", "ko": "잔차 지점"},
    "fig-lens-p-chosen": {"en": "p(chosen)", "ja": "p(選択)", "ko": "p(선택)"},
    "fig-lens-logit": {"en": "logit share", "ja": "ロジットの寄与", "ko": "로짓 기여"},
    "fig-lens-hover": {"en": "{point} · step {step}", "ja": "{point} · ステップ {step}", "ko": "{point} · {step}단계"},
    "fig-lens-top-hover": {
        "en": "top piece %{{customdata[0]}} (p = %{{customdata[1]:.3f}})<br>p(chosen) = %{{z:.3f}}",
        "ja": "最有力のピース %{{customdata[0]}} (p = %{{customdata[1]:.3f}})<br>p(選択) = %{{z:.3f}}",
        "ko": "최상위 조각 %{{customdata[0]}} (p = %{{customdata[1]:.3f}})<br>p(선택) = %{{z:.3f}}",
    },
    "fig-lens-dla-hover": {
        "en": "direct contribution to the chosen logit: %{{z:+.3f}}",
        "ja": "選ばれたロジットへの直接の寄与: %{{z:+.3f}}",
        "ko": "고른 로짓에 대한 직접 기여: %{{z:+.3f}}",
    },
}
