"""Moving around the app's page in browser tests: the views are tabs inside four groups of tabs."""
from __future__ import annotations

GROUP_OF_TAB = {
    "cross": "attention", "dec-self": "attention", "enc-self": "attention", "overview": "attention",
    "heads": "analysis", "rollout": "analysis", "beam": "analysis",
    "whatif": "experiments", "bugs": "experiments",
    "pe": "model", "masks": "model", "card": "model",
}


def open_tab(page, tab: str) -> None:
    """Click the group that holds the view, then the view's own tab (e.g. open_tab(page, "pe"))."""
    page.click(f"#group-{GROUP_OF_TAB[tab]}-button")
    page.click(f"#tab-{tab}-button")
