"""replicas"""
