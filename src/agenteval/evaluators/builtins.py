"""Importing this module registers every built-in evaluator."""

from agenteval.evaluators import finalresponse, gate, textmatch, trajectory
from agenteval.evaluators.llm import finalresponse as llm_finalresponse
from agenteval.evaluators.llm import hallucinations as llm_hallucinations
from agenteval.evaluators.llm import judgetemplate as llm_judgetemplate
from agenteval.evaluators.llm import knowledgerecall as llm_knowledgerecall
from agenteval.evaluators.llm import rubriccritic as llm_rubriccritic
from agenteval.evaluators.llm import rubricrefcritic as llm_rubricrefcritic
from agenteval.evaluators.llm import rubricresponse as llm_rubricresponse
from agenteval.evaluators.llm import verifier as llm_verifier

__all__ = [
    "finalresponse",
    "gate",
    "llm_finalresponse",
    "llm_hallucinations",
    "llm_judgetemplate",
    "llm_knowledgerecall",
    "llm_rubriccritic",
    "llm_rubricrefcritic",
    "llm_rubricresponse",
    "llm_verifier",
    "textmatch",
    "trajectory",
]
